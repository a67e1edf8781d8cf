"""Team operations: creation/edit rules, visibility, members, repositories, search, feed."""

import pytest
from django.db import connection

from codehost.models import AccessMode, Activity, OpType, OrgMembership, Team, TeamMember, UserBlock
from tests.codehost.factories import UserFactory, owner_of

pytestmark = pytest.mark.django_db

ALL_UNITS = [
    "repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki", "repo.ext_wiki",
    "repo.ext_issues", "repo.projects", "repo.packages", "repo.actions",
]  # fmt: skip


def make_team(api, org="acme", **body):
    body.setdefault("name", "devs")
    response = api.post(f"/orgs/{org}/teams", body)
    assert response.status_code == 201, response.content
    return response.json()


def add_member(api, team_id, username):
    assert api.put(f"/teams/{team_id}/members/{username}").status_code == 204


# --- creation ---------------------------------------------------------------------------


def test_create_with_units_turns_read_write_permission_into_none(as_user, alice, acme):
    body = make_team(
        as_user(alice),
        permission="write",
        units=["repo.code", "repo.issues"],
        includes_all_repositories=True,
        description="team one",
    )
    assert body["permission"] == "none"
    assert body["units"] == ["repo.code", "repo.issues"]
    assert body["units_map"] == {"repo.code": "write", "repo.issues": "write"}
    assert body["organization"]["name"] == "acme"
    assert body["includes_all_repositories"] is True
    assert list(body) == [
        "id", "name", "description", "organization", "includes_all_repositories",
        "permission", "units", "units_map", "can_create_org_repo",
    ]  # fmt: skip


def test_create_with_units_map_keeps_each_mode(as_user, alice, acme):
    body = make_team(
        as_user(alice),
        units_map={"repo.code": "read", "repo.issues": "write", "repo.wiki": "none"},
    )
    assert body["permission"] == "none"
    assert body["units_map"] == {"repo.code": "read", "repo.issues": "write", "repo.wiki": "none"}


def test_create_admin_team_gets_every_unit(as_user, alice, acme):
    body = make_team(as_user(alice), permission="admin")
    assert body["permission"] == "admin"
    assert sorted(body["units"]) == sorted(ALL_UNITS)
    assert set(body["units_map"].values()) == {"admin"}
    team = Team.objects.get(pk=body["id"])
    assert team.units["repo.ext_issues"] == AccessMode.READ
    assert team.units["repo.code"] == AccessMode.ADMIN


def test_create_without_units_is_a_500_and_creates_nothing(as_user, alice, acme):
    response = as_user(alice).post("/orgs/acme/teams", {"name": "devs", "permission": "read"})
    assert response.status_code == 500
    assert response.json()["message"] == ""  # details only for site admins
    assert not Team.objects.filter(name="devs").exists()


def test_create_duplicate_name_is_422_case_insensitively(as_user, alice, acme):
    make_team(as_user(alice), units=["repo.code"])
    response = as_user(alice).post("/orgs/acme/teams", {"name": "DEVS", "units": ["repo.code"]})
    assert response.status_code == 422
    assert response.json()["message"] == f"team already exists [org_id: {acme.pk}, name: DEVS]"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "[Name]: Required"),
        ({"name": "bad name", "units": ["repo.code"]}, "[Name]: AlphaDashDot"),
        ({"name": "x" * 256, "units": ["repo.code"]}, "[Name]: MaxSize"),
        ({"name": "ok", "permission": "owner"}, "[Permission]: In"),
    ],
)
def test_create_validation(as_user, alice, acme, body, message):
    response = as_user(alice).post("/orgs/acme/teams", body)
    assert response.status_code == 422
    assert response.json()["message"] == message
    assert response.json()["url"].endswith("/api/swagger")


def test_create_unknown_org_404_non_owner_403(as_user, alice, bob, acme):
    assert as_user(alice).post("/orgs/nope/teams", {"name": "x"}).status_code == 404
    assert as_user(bob).post("/orgs/acme/teams", {"name": "x"}).json() == {
        "message": "Must be an organization member",
        "url": "http://127.0.0.1:8000/api/swagger",
    }
    team = make_team(as_user(alice), units=["repo.code"])
    add_member(as_user(alice), team["id"], "bob")
    response = as_user(bob).post("/orgs/acme/teams", {"name": "x", "units": ["repo.code"]})
    assert response.status_code == 403
    assert response.json()["message"] == "Must be an organization owner"


def test_anonymous_gets_401(as_user, acme):
    response = as_user().get("/orgs/acme/teams")
    assert response.status_code == 401
    assert response.json()["message"] == "token is required"


# --- edit -------------------------------------------------------------------------------


def test_edit_to_admin_then_description_only_keeps_the_rest(as_user, alice, acme):
    api = as_user(alice)
    team = make_team(api, permission="write", units=["repo.code"], includes_all_repositories=True)
    response = api.patch(
        f"/teams/{team['id']}",
        {"name": "teamone", "permission": "admin", "includes_all_repositories": False},
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["permission"], body["includes_all_repositories"]) == (
        "teamone", "admin", False,
    )  # fmt: skip
    assert body["organization"] is None
    assert sorted(body["units"]) == sorted(ALL_UNITS)
    again = api.patch(f"/teams/{team['id']}", {"description": "new"}).json()
    assert again["description"] == "new"
    assert (again["name"], again["permission"]) == ("teamone", "admin")


def test_edit_includes_all_is_ignored_without_permission(as_user, alice, acme):
    api = as_user(alice)
    team = make_team(api, units=["repo.code"])
    body = api.patch(f"/teams/{team['id']}", {"includes_all_repositories": True}).json()
    assert body["includes_all_repositories"] is False


def test_edit_units_map_replaces_units(as_user, alice, acme):
    api = as_user(alice)
    team = make_team(api, units_map={"repo.code": "read"})
    body = api.patch(f"/teams/{team['id']}", {"units_map": {"repo.issues": "write"}}).json()
    assert body["units_map"] == {"repo.issues": "write"}
    body = api.patch(f"/teams/{team['id']}", {"description": "x"}).json()
    assert body["units_map"] == {"repo.issues": "write"}


def test_owner_team_keeps_its_mode_and_create_right(as_user, alice, owners_team):
    body = (
        as_user(alice)
        .patch(
            f"/teams/{owners_team.pk}",
            {
                "permission": "read",
                "can_create_org_repo": False,
                "includes_all_repositories": False,
            },
        )
        .json()
    )
    assert body["permission"] == "owner"
    assert body["can_create_org_repo"] is True
    assert body["includes_all_repositories"] is True
    assert set(body["units_map"].values()) == {"owner"}


def test_edit_rename_onto_existing_is_500(as_user, alice, acme):
    api = as_user(alice)
    make_team(api, name="one", units=["repo.code"])
    two = make_team(api, name="two", units=["repo.code"])
    assert api.patch(f"/teams/{two['id']}", {"name": "ONE"}).status_code == 500


def test_edit_and_delete_by_team_member_who_is_not_owner_is_404(as_user, alice, bob, acme):
    team = make_team(as_user(alice), units=["repo.code"])
    add_member(as_user(alice), team["id"], "bob")
    assert as_user(bob).patch(f"/teams/{team['id']}", {"description": "x"}).status_code == 404
    assert as_user(bob).delete(f"/teams/{team['id']}").status_code == 404
    assert as_user(alice).delete(f"/teams/{team['id']}").status_code == 204
    assert not Team.objects.filter(pk=team["id"]).exists()
    # bob was only in that team: he leaves the organization with it.
    assert not OrgMembership.objects.filter(org=acme, user=owner_of(bob)).exists()


def test_unknown_team_is_404(as_user, alice):
    response = as_user(alice).get("/teams/999999")
    assert response.status_code == 404
    assert response.json()["errors"] is None


# --- reading and visibility ---------------------------------------------------------------


def test_team_read_rules(as_user, alice, bob, acme, admin):
    api = as_user(alice)
    devs = make_team(api, name="devs", units=["repo.code"])
    ops = make_team(api, name="ops", units=["repo.code"])
    add_member(api, devs["id"], "bob")
    assert as_user(bob).get(f"/teams/{devs['id']}").status_code == 200
    other = as_user(bob).get(f"/teams/{ops['id']}")
    assert other.status_code == 403 and other.json()["message"] == "Must be a team member"
    carol = UserFactory(username="carol")
    assert as_user(carol).get(f"/teams/{devs['id']}").status_code == 404
    assert as_user(admin).get(f"/teams/{ops['id']}").status_code == 200


def test_team_changes_by_non_owners_follow_gitea_route_order(as_user, alice, bob, acme):
    # Gitea checks team membership for the whole /teams/{id} group first (an org member
    # outside the team: 403 "Must be a team member"), then ownership (404 in a team route).
    api = as_user(alice)
    devs = make_team(api, name="devs", units=["repo.code"])
    ops = make_team(api, name="ops", units=["repo.code"])
    add_member(api, devs["id"], "bob")
    carol = UserFactory(username="carol")
    outsider = as_user(bob)
    for method, path in (
        ("put", f"/teams/{ops['id']}/members/bob"),
        ("delete", f"/teams/{ops['id']}/members/alice"),
        ("patch", f"/teams/{ops['id']}"),
        ("delete", f"/teams/{ops['id']}"),
    ):
        response = getattr(outsider, method)(path, {} if method == "patch" else None)
        assert response.status_code == 403, (method, path)
        assert response.json()["message"] == "Must be a team member"
        assert getattr(as_user(carol), method)(path).status_code == 404
    assert outsider.put(f"/teams/{devs['id']}/members/carol").status_code == 404
    assert outsider.delete(f"/teams/{devs['id']}").status_code == 404
    assert Team.objects.filter(pk=ops["id"]).exists()
    assert not TeamMember.objects.filter(team_id=ops["id"], user__name="bob").exists()


def test_org_teams_list_is_paginated_by_name_without_organization(as_user, alice, acme):
    api = as_user(alice)
    for name in ["b", "a", "c", "d"]:
        make_team(api, name=name, units=["repo.code"])
    response = api.get("/orgs/acme/teams?limit=2&page=2")
    assert response.status_code == 200
    assert [team["name"] for team in response.json()] == ["c", "d"]
    assert response["X-Total-Count"] == "5"
    assert all(team["organization"] is None for team in response.json())
    assert 'rel="next"' in response["Link"] and 'rel="first"' in response["Link"]


def test_user_teams_lists_teams_with_their_organization(as_user, alice, bob, acme):
    team = make_team(as_user(alice), units=["repo.code"])
    add_member(as_user(alice), team["id"], "bob")
    body = as_user(bob).get("/user/teams").json()
    assert [(t["name"], t["organization"]["name"]) for t in body] == [("devs", "acme")]


# --- members ------------------------------------------------------------------------------


def test_members_add_list_get_remove(as_user, alice, bob, acme):
    api = as_user(alice)
    team = make_team(api, units=["repo.code"])
    add_member(api, team["id"], "bob")
    add_member(api, team["id"], "bob")  # idempotent
    assert Team.objects.get(pk=team["id"]).num_members == 1
    assert OrgMembership.objects.filter(org=acme, user=owner_of(bob)).exists()
    members = api.get(f"/teams/{team['id']}/members")
    assert [m["login"] for m in members.json()] == ["bob"]
    assert members["X-Total-Count"] == "1"
    assert api.get(f"/teams/{team['id']}/members/bob").json()["username"] == "bob"
    assert api.get(f"/teams/{team['id']}/members/alice").status_code == 404
    assert api.get(f"/teams/{team['id']}/members/nobody").status_code == 404
    assert api.delete(f"/teams/{team['id']}/members/bob").status_code == 204
    assert api.get(f"/teams/{team['id']}/members/bob").status_code == 404
    assert Team.objects.get(pk=team["id"]).num_members == 0


def test_member_list_needs_org_membership(as_user, alice, admin, acme):
    team = make_team(as_user(alice), units=["repo.code"])
    carol = UserFactory(username="carol")
    assert as_user(carol).get(f"/teams/{team['id']}/members").status_code == 404
    assert as_user(admin).get(f"/teams/{team['id']}/members").status_code == 200


def test_blocked_user_cannot_be_added(as_user, alice, bob, acme):
    UserBlock.objects.create(blocker=owner_of(bob), blockee=owner_of(alice))
    team = make_team(as_user(alice), units=["repo.code"])
    response = as_user(alice).put(f"/teams/{team['id']}/members/bob")
    assert response.status_code == 403
    assert not TeamMember.objects.filter(team_id=team["id"]).exists()


def test_last_owner_cannot_leave_owners(as_user, alice, owners_team):
    response = as_user(alice).delete(f"/teams/{owners_team.pk}/members/alice")
    assert response.status_code == 500
    assert TeamMember.objects.filter(team=owners_team).count() == 1


# --- repositories -------------------------------------------------------------------------


def create_org_repo(api, name, org="acme", **extra):
    response = api.post(f"/orgs/{org}/repos", {"name": name, **extra})
    assert response.status_code == 201, response.content
    return response.json()


def test_team_repos_add_get_list_remove(as_user, alice, bob, acme):
    api = as_user(alice)
    team = make_team(api, units=["repo.code"])
    create_org_repo(api, "one")
    create_org_repo(api, "two")
    assert api.get(f"/teams/{team['id']}/repos/acme/one").status_code == 404
    assert api.put(f"/teams/{team['id']}/repos/acme/one").status_code == 204
    assert api.put(f"/teams/{team['id']}/repos/acme/one").status_code == 204
    assert api.get(f"/teams/{team['id']}/repos/acme/one").json()["full_name"] == "acme/one"
    assert api.put(f"/teams/{team['id']}/repos/acme/missing").status_code == 404
    listing = api.get(f"/teams/{team['id']}/repos")
    assert [r["name"] for r in listing.json()] == ["one"]
    assert listing["X-Total-Count"] == "1"
    assert api.delete(f"/teams/{team['id']}/repos/acme/one").status_code == 204
    assert api.get(f"/teams/{team['id']}/repos").json() == []
    # the repository itself is not deleted
    assert api.get("/repos/acme/one").status_code == 200


def test_team_repo_change_needs_admin_access_to_the_repo(as_user, alice, bob, acme):
    api = as_user(alice)
    team = make_team(api, units=["repo.code"])
    create_org_repo(api, "one")
    add_member(api, team["id"], "bob")
    response = as_user(bob).put(f"/teams/{team['id']}/repos/acme/one")
    assert response.status_code == 403
    assert response.json()["message"] == "Must have admin-level access to the repository"
    assert as_user(bob).delete(f"/teams/{team['id']}/repos/acme/one").status_code == 403


def test_includes_all_team_gets_existing_and_new_repos_and_keeps_them(as_user, alice, acme):
    api = as_user(alice)
    create_org_repo(api, "old")
    team = make_team(api, units=["repo.code"], includes_all_repositories=True)
    create_org_repo(api, "new")
    assert [r["name"] for r in api.get(f"/teams/{team['id']}/repos").json()] == ["new", "old"]
    assert api.delete(f"/teams/{team['id']}/repos/acme/old").status_code == 204
    assert Team.objects.get(pk=team["id"]).num_repos == 2


def test_team_unit_access_applies_to_members(as_user, alice, bob, acme):
    api = as_user(alice)
    create_org_repo(api, "secret", private=True)
    team = make_team(api, units_map={"repo.code": "write"})
    add_member(api, team["id"], "bob")
    assert as_user(bob).get("/repos/acme/secret").status_code == 404
    api.put(f"/teams/{team['id']}/repos/acme/secret")
    permissions = as_user(bob).get("/repos/acme/secret").json()["permissions"]
    assert permissions == {"admin": False, "push": True, "pull": True}


# --- search -------------------------------------------------------------------------------


def test_search_non_admin_sees_only_own_teams(as_user, alice, bob, admin, acme):
    api = as_user(alice)
    mine = make_team(api, name="backend_team", units=["repo.code"], description="servers")
    make_team(api, name="frontend_team", units=["repo.code"])
    add_member(api, mine["id"], "bob")
    body = as_user(bob).get("/orgs/acme/teams/search?q=_TEAM").json()
    assert body["ok"] is True
    assert [t["name"] for t in body["data"]] == ["backend_team"]
    found = as_user(admin).get("/orgs/acme/teams/search?q=team").json()["data"]
    assert [t["name"] for t in found] == ["backend_team", "frontend_team"]
    by_desc = as_user(admin).get("/orgs/acme/teams/search?q=server").json()["data"]
    assert [t["name"] for t in by_desc] == ["backend_team"]
    no_desc = as_user(admin).get("/orgs/acme/teams/search?q=server&include_desc=False").json()
    assert no_desc["data"] == []
    assert as_user(UserFactory(username="carol")).get("/orgs/acme/teams/search").status_code == 403


def test_search_database_failure_is_500_ok_false(as_user, alice, acme):
    """A real failure: the team table is gone for this (rolled back) transaction."""
    api = as_user(alice)
    api.get("/orgs/acme/teams/search")  # warm the Basic-auth cache
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE codehost_team RENAME TO codehost_team_gone")
    response = api.get("/orgs/acme/teams/search?q=x")
    assert response.status_code == 500
    assert response.json() == {"ok": False, "error": "SearchTeam internal failure"}


# --- activity feed ------------------------------------------------------------------------


def test_team_feed_lists_org_activity_on_team_repos_newest_first(as_user, alice, acme):
    api = as_user(alice)
    team = make_team(api, units=["repo.code"], includes_all_repositories=True)
    create_org_repo(api, "one")
    api.patch("/repos/acme/one", {"name": "uno"})
    feed = api.get(f"/teams/{team['id']}/activities/feeds")
    assert feed.status_code == 200
    assert [(e["op_type"], e["content"]) for e in feed.json()] == [
        ("rename_repo", "one"),
        ("create_repo", ""),
    ]
    entry = feed.json()[0]
    assert entry["act_user"]["login"] == "alice"
    assert entry["repo"]["full_name"] == "acme/uno"
    assert entry["user_id"] == acme.pk
    assert feed["X-Total-Count"] == "2"
    today = Activity.objects.first().created.date().isoformat()
    assert len(api.get(f"/teams/{team['id']}/activities/feeds?date={today}").json()) == 2
    assert api.get(f"/teams/{team['id']}/activities/feeds?date=2001-01-01").json() == []
    assert len(api.get(f"/teams/{team['id']}/activities/feeds?date=garbage").json()) == 2
    assert Activity.objects.filter(op_type=OpType.CREATE_REPO, user=acme).count() == 1


def test_team_feed_follows_team_repositories_and_repository_deletion(as_user, alice, acme):
    """Gitea has no op type for these: the feed is read through the team's current
    repositories, and deleting a repository deletes its entries."""
    api = as_user(alice)
    team = make_team(api, units=["repo.code"])
    create_org_repo(api, "one")
    feed_url = f"/teams/{team['id']}/activities/feeds"
    assert api.get(feed_url).json() == []
    assert api.put(f"/teams/{team['id']}/repos/acme/one").status_code == 204
    assert [e["op_type"] for e in api.get(feed_url).json()] == ["create_repo"]
    assert api.delete(f"/teams/{team['id']}/repos/acme/one").status_code == 204
    assert api.get(feed_url).json() == []
    assert api.put(f"/teams/{team['id']}/repos/acme/one").status_code == 204
    assert api.delete("/repos/acme/one").status_code == 204
    assert api.get(feed_url).json() == []
    assert not Activity.objects.filter(act_user=owner_of(alice)).exists()
