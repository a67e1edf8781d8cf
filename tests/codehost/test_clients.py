"""Gitea's own Python clients, unchanged, against a live server."""

import giteapy
import pytest
from gitea import Gitea

from tests.codehost.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_py_gitea_creates_org_team_repo_and_lists_them(live_server):
    UserFactory(username="root", is_superuser=True, is_staff=True)
    admin = Gitea(live_server.url, auth=("root", PASSWORD))
    assert admin.get_version() == "1.26.3"
    me = admin.get_user()
    assert me.username == "root" and me.is_admin
    alice = admin.create_user("alice", "alice@example.com", "password123", change_pw=False)
    org = admin.create_org(alice, "acme", "The Acme org")
    assert org.username == "acme"
    team = admin.create_team(org, "devs", description="developers")
    assert team.permission == "none"
    team.add_user(alice)
    repo = admin.create_repo(org, "demo", description="a demo", autoInit=True)
    assert (repo.name, repo.owner.username) == ("demo", "acme")
    assert repo.updated_at is not None  # parsed with py-gitea's time format
    assert [t.name for t in org.get_teams()] == ["devs", "Owners"]
    assert [r.name for r in org.get_repositories()] == ["demo"]
    assert [m.username for m in team.get_members()] == ["alice"]

    token = Gitea(live_server.url, auth=("alice", "password123")).requests_post(
        "/users/alice/tokens", data={"name": "ci", "scopes": ["all"]}
    )["sha1"]
    as_alice = Gitea(live_server.url, token_text=token)
    assert as_alice.get_user().username == "alice"


def test_giteapy_creates_org_team_repo_and_searches(live_server):
    UserFactory(username="alice")
    config = giteapy.Configuration()
    config.host = live_server.url + "/api/v1"
    config.username = "alice"
    config.password = PASSWORD
    client = giteapy.ApiClient(config)
    orgs = giteapy.OrganizationApi(client)
    repos = giteapy.RepositoryApi(client)
    users = giteapy.UserApi(client)

    assert users.user_get_current().login == "alice"
    orgs.org_create(giteapy.CreateOrgOption(username="acme", full_name="Acme"))
    team = orgs.org_create_team(
        "acme", body=giteapy.CreateTeamOption(name="devs", permission="write", units=["repo.code"])
    )
    assert (team.name, team.permission) == ("devs", "none")
    created = orgs.create_org_repo("acme", body=giteapy.CreateRepoOption(name="demo", private=True))
    assert created.full_name == "acme/demo" and created.private is True
    orgs.org_add_team_repository(team.id, "acme", "demo")
    assert [t.name for t in orgs.org_list_teams("acme")] == ["devs", "Owners"]
    found = repos.repo_search(q="dem", private=True, include_desc=False, limit=10)
    assert found.ok is True and [r.full_name for r in found.data] == ["acme/demo"]
    assert repos.repo_get("acme", "demo").permissions.admin is True
