"""Tenant isolation of code hosting: every kind of caller against every kind of operation
on a private repository of an organization, through the real API URLs and the git CLI
against a live server. Each cell is its own test id: `<caller>-<class>-<operation>`.

Expected answers follow Gitea: the repository is only visible to those with some access
(404 otherwise); reading code needs the code unit; pushing needs write on it; editing,
collaborators and team links need admin; deleting needs ownership (the organization's
owners); a token is bounded by its scopes, a `public-only` token reaches no private
repository, and an account that must change its password is refused everything.
"""

import pytest

from codehost import git as codehost_git
from codehost.models import Collaboration, Repository, TeamRepo
from tests.security.codehost_support import api, git, git_url, private_org_repo

CALLERS = [
    "anonymous",
    "other_org_user",
    "org_owner",
    "team_read",
    "team_write",
    "team_admin",
    "team_issues_only",
    "token_read_only",
    "token_public_only",
    "must_change_password",
]
API_OPERATIONS = [
    ("read", "get"),
    ("read", "collaborators"),
    ("read", "fork"),
    ("admin", "edit"),
    ("admin", "add_collaborator"),
    ("admin", "add_team"),
    ("delete", "delete"),
]
GIT_OPERATIONS = [("read", "clone"), ("write", "push")]

# status per API operation, in API_OPERATIONS order; then git (clone, push) allowed or not.
EXPECTED = {
    # Anonymous: a signed-in route says so first (401, as before any lookup), else 404.
    "anonymous": ((404, 401, 401, 404, 401, 401, 401), (False, False)),
    "other_org_user": ((404, 404, 404, 404, 404, 404, 404), (False, False)),
    "org_owner": ((200, 200, 202, 200, 204, 204, 204), (True, True)),
    "team_read": ((200, 200, 202, 403, 403, 403, 403), (True, False)),
    "team_write": ((200, 200, 202, 403, 403, 403, 403), (True, True)),
    # Admin, not owner: deleting stays with the organization's owners.
    "team_admin": ((200, 200, 202, 200, 204, 204, 403), (True, True)),
    # Sees the repository (its issues), not its code: no fork, no clone.
    "team_issues_only": ((200, 200, 403, 403, 403, 403, 403), (False, False)),
    # The organization owner's token with read:repository and read:organization only.
    "token_read_only": ((200, 200, 403, 403, 403, 403, 403), (True, False)),
    # The organization owner's token with public-only and write scopes.
    "token_public_only": ((403, 403, 403, 403, 403, 403, 403), (False, False)),
    # A member of the write team who must change their password.
    "must_change_password": ((403, 403, 403, 403, 403, 403, 403), (False, False)),
}


def api_cells():
    for caller in CALLERS:
        for index, (kind, operation) in enumerate(API_OPERATIONS):
            status = EXPECTED[caller][0][index]
            yield pytest.param(caller, operation, status, id=f"{caller}-{kind}-{operation}")


def git_cells():
    for caller in CALLERS:
        for index, (kind, operation) in enumerate(GIT_OPERATIONS):
            allowed = EXPECTED[caller][1][index]
            yield pytest.param(caller, operation, allowed, id=f"{caller}-{kind}-git-{operation}")


@pytest.fixture(autouse=True)
def codehost_git_root(settings, tmp_path):
    settings.CODEHOST_GIT_ROOT = tmp_path / "git"
    return settings.CODEHOST_GIT_ROOT


def call(setup, caller, operation):
    client = api(caller.api_auth)
    base = "/api/v1/repos/acme/secret"
    if operation == "get":
        return client.get(base)
    if operation == "collaborators":
        return client.get(f"{base}/collaborators")
    if operation == "fork":
        return client.post(f"{base}/forks", {}, format="json")
    if operation == "edit":
        return client.patch(base, {"description": "changed"}, format="json")
    if operation == "add_collaborator":
        return client.put(f"{base}/collaborators/stranger", {"permission": "read"}, format="json")
    if operation == "add_team":
        team = caller.team or setup.extra_team
        return client.put(f"/api/v1/teams/{team.pk}/repos/acme/secret")
    if operation == "delete":
        return client.delete(base)
    raise AssertionError(operation)


def effect(setup, caller, operation) -> bool:
    """Whether the operation left its mark (reads leave none: True)."""
    repo = Repository.objects.filter(pk=setup.repo.pk).first()
    if operation in ("get", "collaborators"):
        return True
    if operation == "fork":
        return Repository.objects.filter(parent=setup.repo).exists()
    if operation == "edit":
        return repo.description == "changed"
    if operation == "add_collaborator":
        return Collaboration.objects.filter(repo=setup.repo, user__name="stranger").exists()
    if operation == "add_team":
        team = caller.team or setup.extra_team
        return TeamRepo.objects.filter(team=team, repo=setup.repo).exists()
    if operation == "delete":
        return repo is None
    raise AssertionError(operation)


@pytest.mark.django_db
@pytest.mark.parametrize(("caller_name", "operation", "status"), list(api_cells()))
def test_api_cell(caller_name, operation, status, django_capture_on_commit_callbacks):
    setup = private_org_repo()
    caller = setup.callers[caller_name]
    team_links_before = caller.team and TeamRepo.objects.filter(team=caller.team).count()
    with django_capture_on_commit_callbacks(execute=True):
        response = call(setup, caller, operation)
    assert response.status_code == status, response.content
    allowed = status < 300
    if allowed:
        assert effect(setup, caller, operation)
    else:
        assert "message" in response.json()
        if operation == "add_team" and caller.team is not None:
            # Already linked (the caller's team holds the repository): nothing changed.
            assert TeamRepo.objects.filter(team=caller.team).count() == team_links_before
        elif operation not in ("get", "collaborators"):
            assert not effect(setup, caller, operation)
        assert Repository.objects.filter(pk=setup.repo.pk).exists()
    if operation == "delete" and allowed:
        assert not codehost_git.repo_path("acme", "secret").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("caller_name", "operation", "allowed"), list(git_cells()))
def test_git_cell(caller_name, operation, allowed, live_server, tmp_path):
    setup = private_org_repo()
    caller = setup.callers[caller_name]
    home = tmp_path / "home"
    home.mkdir()
    login = caller.git_login or ("", "")
    address = git_url(live_server, "acme/secret.git", *login)
    path = codehost_git.repo_path("acme", "secret")
    if operation == "clone":
        checkout = tmp_path / "checkout"
        result = git("clone", "-q", address, str(checkout), home=home, check=False)
        assert (result.returncode == 0) is allowed, result.stderr
        assert (checkout / "README.md").exists() is allowed
        return
    work = tmp_path / "work"
    work.mkdir()
    git("init", "-q", "-b", "main", cwd=work, home=home)
    (work / "new.txt").write_text("pushed\n")
    git("add", "new.txt", cwd=work, home=home)
    git("commit", "-q", "-m", "new", cwd=work, home=home)
    branch = f"refs/heads/from-{caller_name}"
    result = git("push", "-q", address, f"HEAD:{branch}", cwd=work, home=home, check=False)
    assert (result.returncode == 0) is allowed, result.stderr
    assert (branch in codehost_git.refs(path)) is allowed
