"""Supporting endpoints: admin users, users, organizations, members, version, settings."""

import pytest

from codehost.models import OrgMembership, Owner, Team, TeamMember
from tests.codehost.conftest import basic
from tests.codehost.factories import UserFactory, owner_of

pytestmark = pytest.mark.django_db


def test_admin_creates_users(as_user, admin, alice):
    body = {"username": "carol", "email": "carol@example.com", "password": "secret123",
            "must_change_password": False, "full_name": "Carol"}  # fmt: skip
    response = as_user(admin).post("/admin/users", body)
    assert response.status_code == 201
    assert (response.json()["login"], response.json()["full_name"]) == ("carol", "Carol")
    assert as_user(auth=None).get("/users/carol").status_code == 200
    assert as_user(admin).post("/admin/users", body).status_code == 422
    assert (
        as_user(admin)
        .post("/admin/users", {**body, "username": "x", "email": "bad"})
        .json()["message"]
        == "[Email]: Invalid"
    )
    assert as_user(admin).post("/admin/users", {**body, "username": "api"}).status_code == 422
    refused = as_user(alice).post("/admin/users", {**body, "username": "d"})
    assert refused.status_code == 403
    # Gitea's reqSiteAdmin wording.
    assert refused.json()["message"] == "user should be the site admin"


@pytest.mark.parametrize("name", ["bü", "٣x", "b٣"])
def test_user_names_are_ascii_alpha_dash_dot_as_gitea_reads_them(as_user, admin, name):
    """Gitea's regexp: \\d and \\w are ASCII, and $ is the end of the text."""
    body = {"username": name, "email": "n@example.com", "password": "secret123"}
    response = as_user(admin).post("/admin/users", body)
    assert (response.status_code, response.json()["message"]) == (
        422, "[UserName]: invalid username",
    )  # fmt: skip


def test_admin_created_users_must_change_password_unless_told_otherwise(as_user, admin):
    body = {"username": "dave", "email": "dave@example.com", "password": "secret123"}
    assert as_user(admin).post("/admin/users", body).status_code == 201
    refused = as_user(auth=basic("dave", "secret123")).get("/user")
    assert refused.status_code == 403
    assert refused.json() == {
        "message": "You must change your password. Change it at: "
        "http://127.0.0.1:8000/user/change_password"
    }
    Owner.objects.filter(name="dave").update(must_change_password=False)  # the admin clears it
    assert as_user(auth=basic("dave", "secret123")).get("/user").status_code == 200
    told = {"username": "erin", "email": "erin@example.com", "password": "secret123",
            "must_change_password": False}  # fmt: skip
    assert as_user(admin).post("/admin/users", told).status_code == 201
    assert as_user(auth=basic("erin", "secret123")).get("/user").status_code == 200


def test_current_user_and_other_users(as_user, alice, bob):
    me = as_user(alice).get("/user").json()
    assert me["login"] == "alice" and me["username"] == "alice"
    assert me["email"] == "alice@example.com" and me["active"] is True
    assert me["last_login"].endswith("+00:00")
    other = as_user(bob).get("/users/alice").json()
    assert other["active"] is False and other["language"] == ""
    anonymous = as_user().get("/users/alice").json()
    assert anonymous["email"] == f"{owner_of(alice).pk}+alice@noreply.127.0.0.1"
    assert as_user().get("/users/nobody").status_code == 404


def test_an_organization_reads_as_a_user(as_user, alice, bob, admin):
    """Gitea keeps users and organizations in one table: GET /users/{org} answers the
    organization as a User record (convert.ToUser), with the visibility rules of users."""
    created = as_user(alice).post("/orgs", {"username": "Acme", "email": "ops@acme.test"})
    org_id = created.json()["id"]
    user_keys = list(as_user(bob).get("/users/alice").json())
    seen = as_user(bob).get("/users/acme")
    assert seen.status_code == 200
    body = seen.json()
    assert list(body) == user_keys
    assert (body["id"], body["login"], body["username"]) == (org_id, "Acme", "Acme")
    assert (body["email"], body["active"], body["is_admin"]) == ("ops@acme.test", False, False)
    anonymous = as_user().get("/users/ACME").json()
    assert anonymous["email"] == f"{org_id}+acme@noreply.127.0.0.1"
    # A site admin sees the self-only fields: an organization is active and speaks no language.
    by_admin = as_user(admin).get("/users/acme").json()
    assert (by_admin["active"], by_admin["language"], by_admin["prohibit_login"]) == (
        True, "", False,
    )  # fmt: skip
    # A private organization: its members and admins only, as GET /orgs/{org}.
    assert as_user(alice).post("/orgs", {"username": "vault", "visibility": "private"})
    assert as_user(alice).get("/users/vault").status_code == 200
    hidden = as_user(bob).get("/users/vault")
    assert hidden.status_code == 404
    assert hidden.json()["message"] == "user does not exist [name: vault]"
    assert as_user().get("/users/vault").status_code == 404


def test_tokens_of_an_organization_are_refused_as_gitea_does(as_user, alice, admin):
    """Gitea's reqSelfOrAdmin comes first: anybody but a site admin gets its 403."""
    assert as_user(alice).post("/orgs", {"username": "acme"}).status_code == 201
    refused = as_user(alice).get("/users/acme/tokens")
    assert refused.status_code == 403
    assert refused.json()["message"] == (
        "doer should be the site admin or be same as the contextUser"
    )
    assert as_user(admin).get("/users/acme/tokens").status_code == 404


def test_create_org_makes_creator_owner(as_user, alice):
    response = as_user(alice).post(
        "/orgs", {"username": "acme", "full_name": "Acme Inc", "visibility": "limited"}
    )
    assert response.status_code == 201
    body = response.json()
    assert list(body) == [
        "id", "name", "full_name", "email", "avatar_url", "description", "website", "location",
        "visibility", "repo_admin_change_team_access", "username",
    ]  # fmt: skip
    assert body["visibility"] == "limited"
    org = Owner.objects.get(name="acme")
    owners = Team.objects.get(org=org)
    assert (owners.name, owners.access_mode, owners.includes_all_repositories) == (
        "Owners",
        4,
        True,
    )
    assert TeamMember.objects.filter(team=owners, user=owner_of(alice)).exists()
    assert as_user(alice).post("/orgs", {"username": "ACME"}).status_code == 422
    assert as_user(alice).post("/orgs", {"username": "bad name"}).json()["message"] == (
        "[UserName]: invalid username"
    )
    assert (
        as_user(alice).post("/orgs", {"username": "x", "visibility": "secret"}).status_code == 422
    )
    assert as_user().post("/orgs", {"username": "y"}).status_code == 401


def test_org_visibility(as_user, alice, bob):
    as_user(alice).post("/orgs", {"username": "open"})
    as_user(alice).post("/orgs", {"username": "closed", "visibility": "private"})
    assert as_user().get("/orgs/open").status_code == 200
    assert as_user().get("/orgs/closed").status_code == 404
    assert as_user(bob).get("/orgs/closed").status_code == 404
    assert as_user(alice).get("/orgs/closed").json()["visibility"] == "private"
    assert [o["name"] for o in as_user().get("/orgs").json()] == ["open"]


def test_org_members_non_members_see_public_members_only(as_user, alice, bob):
    as_user(alice).post("/orgs", {"username": "acme"})
    assert [u["login"] for u in as_user(alice).get("/orgs/acme/members").json()] == ["alice"]
    assert as_user(bob).get("/orgs/acme/members").json() == []
    OrgMembership.objects.filter(org__name="acme").update(is_public=True)
    assert [u["login"] for u in as_user(bob).get("/orgs/acme/members").json()] == ["alice"]


def test_version_and_api_settings(as_user):
    assert as_user().get("/version").json() == {"version": "1.26.3"}
    assert as_user().get("/settings/api").json() == {
        "max_response_items": 50,
        "default_paging_num": 30,
        "default_git_trees_per_page": 1000,
        "default_max_blob_size": 10485760,
        "default_max_response_size": 104857600,
    }


def test_unknown_path_and_bad_json(as_user, alice):
    response = as_user().get("/nowhere")
    assert response.status_code == 404
    assert response.json()["message"] == "not found"
    bad = as_user(alice).client.post(
        "/api/v1/user/repos", data="{not json", content_type="application/json"
    )
    assert bad.status_code == 422 and bad.json()["message"].startswith("[]: ")


def test_form_encoded_bodies_are_accepted(as_user, alice):
    response = as_user(alice).client.post(
        "/api/v1/user/repos", {"name": "formy", "private": "true"}
    )
    assert response.status_code == 201
    assert response.json()["private"] is True


def test_user_namespace_signal_skips_names_held_by_orgs(as_user, alice):
    as_user(alice).post("/orgs", {"username": "taken"})
    user = UserFactory(username="taken")
    assert not Owner.objects.filter(user=user).exists()
    assert as_user(user).get("/user").status_code == 403


def test_unknown_path_with_encoded_newline_is_a_gitea_404(as_user):
    response = as_user().get("/teams/x%0Ay/members")
    assert response.status_code == 404
    assert response.json()["message"] == "not found"
