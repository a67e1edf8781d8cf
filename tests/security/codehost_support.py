"""Shared pieces of the code hosting security tests: API clients through real URLs, a git
CLI client for the live server, and a private organization repository with one caller of
each kind."""

import base64
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from rest_framework.test import APIClient

from codehost.access import Actor
from codehost.models import Owner, Repository, Team
from codehost.services import accounts, orgs, repositories, teams
from tests.codehost.factories import PASSWORD, UserFactory

GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def basic(username: str, secret: str = PASSWORD) -> str:
    return "Basic " + base64.b64encode(f"{username}:{secret}".encode()).decode()


def api(auth: str | None = None) -> APIClient:
    client = APIClient()
    if auth:
        client.credentials(HTTP_AUTHORIZATION=auth)
    return client


def git(*args: str, cwd: Path | None = None, home: Path, check: bool = True):
    result = subprocess.run(
        ["git", "-c", "user.name=Tester", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        env={**GIT_ENV, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check and result.returncode:
        raise AssertionError(result.stderr)
    return result


def git_url(live_server, path: str, username: str = "", secret: str = "") -> str:
    host = live_server.url.removeprefix("http://")
    login = f"{username}:{secret}@" if username else ""
    return f"http://{login}{host}/{path}"


def owner(username: str, **fields) -> Owner:
    user = UserFactory(username=username, **fields)
    return accounts.user_owner(user)


def token(user_owner: Owner, scopes: list[str], name: str = "t") -> str:
    return accounts.create_token(user_owner.user, name, scopes)[1]


@dataclass
class Caller:
    """One kind of caller: how it signs in to the API and to git."""

    name: str
    api_auth: str | None = None
    git_login: tuple[str, str] | None = None
    # The caller's own team in `acme`, if any (the teams operation adds the repository to it).
    team: Team | None = None


@dataclass
class PrivateOrgRepo:
    """acme/secret: a private repository (with a first commit) of the public organization
    acme, and every kind of caller of the isolation matrix."""

    org: Owner
    repo: Repository
    extra_team: Team
    callers: dict[str, Caller] = field(default_factory=dict)


def team_with(org: Owner, actor: Actor, name: str, permission: str, units_map: dict, repo):
    team = teams.create_team(
        org, teams.TeamOptions(name=name, permission=permission, units_map=units_map), actor
    )
    teams.add_team_repo(team, repo, actor)
    return team


def private_org_repo() -> PrivateOrgRepo:
    boss = owner("boss")
    boss_actor = Actor(owner=boss)
    org = orgs.create_org(boss, orgs.OrgOptions(username="acme"))
    repo = repositories.create_repo(
        boss_actor, org, repositories.RepoOptions(name="secret", private=True, auto_init=True)
    )
    code_units = ["repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki"]
    setup = PrivateOrgRepo(
        org=org,
        repo=repo,
        extra_team=teams.create_team(
            org, teams.TeamOptions(name="extra", units_map={"repo.code": "read"}), boss_actor
        ),
    )
    callers = setup.callers
    callers["anonymous"] = Caller("anonymous")
    stranger = owner("stranger")
    orgs.create_org(stranger, orgs.OrgOptions(username="elsewhere"))
    callers["other_org_user"] = Caller("other_org_user", basic("stranger"), ("stranger", PASSWORD))
    callers["org_owner"] = Caller("org_owner", basic("boss"), ("boss", PASSWORD))
    for mode in ("read", "write", "admin"):
        member = owner(f"{mode}er")
        units = dict.fromkeys(code_units, mode if mode != "admin" else "write")
        team = team_with(org, boss_actor, f"{mode}-team", mode if mode == "admin" else "", units,
                         repo)  # fmt: skip
        teams.add_team_member(team, member, boss_actor)
        callers[f"team_{mode}"] = Caller(
            f"team_{mode}", basic(member.name), (member.name, PASSWORD), team
        )
    issues_only = owner("tracker")
    team = team_with(org, boss_actor, "issues-team", "", {"repo.issues": "read"}, repo)
    teams.add_team_member(team, issues_only, boss_actor)
    callers["team_issues_only"] = Caller(
        "team_issues_only", basic("tracker"), ("tracker", PASSWORD), team
    )
    # Tokens of the organization's owner: whatever they refuse, the scope refuses.
    read_only = token(boss, ["read:repository", "read:organization"], "read-only")
    callers["token_read_only"] = Caller(
        "token_read_only", f"token {read_only}", ("boss", read_only)
    )
    public_only = token(boss, ["public-only", "write:repository", "write:organization"], "pub")
    callers["token_public_only"] = Caller(
        "token_public_only", f"token {public_only}", ("boss", public_only)
    )
    pending = owner("pending")
    teams.add_team_member(Team.objects.get(org=org, name="write-team"), pending, boss_actor)
    Owner.objects.filter(pk=pending.pk).update(must_change_password=True)
    callers["must_change_password"] = Caller(
        "must_change_password", basic("pending"), ("pending", PASSWORD)
    )
    return setup
