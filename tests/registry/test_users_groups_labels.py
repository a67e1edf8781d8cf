"""Users, user groups and labels."""

import pytest
from django.contrib.auth import get_user_model

from registry.errors import NotFound
from registry.models import Label, UserGroup
from registry.services import labels, usergroups
from tests.registry.conftest import client_for
from tests.registry.factories import LabelFactory, MemberFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()

GOOD = {"username": "dave", "email": "dave@example.com", "password": "Passw0rd", "realname": "D"}


def test_create_user_rules(admin_client, alice_client, anon):
    response = admin_client.post("/api/v2.0/users", GOOD)
    assert response.status_code == 201
    dave = User.objects.get(username="dave")
    assert response["Location"] == f"/api/v2.0/users/{dave.pk}"
    assert dave.check_password("Passw0rd")
    assert admin_client.post("/api/v2.0/users", GOOD).status_code == 409
    weak = admin_client.post("/api/v2.0/users", {**GOOD, "username": "e", "password": "short"})
    assert weak.status_code == 400
    assert weak.json()["errors"][0]["message"].startswith("the password or secret must be 8-128")
    assert anon.post("/api/v2.0/users", GOOD).status_code == 401
    assert alice_client.post("/api/v2.0/users", {**GOOD, "username": "x"}).status_code == 403
    bad_email = admin_client.post("/api/v2.0/users", {**GOOD, "username": "f", "email": "no"})
    assert bad_email.status_code == 400
    body = admin_client.get(f"/api/v2.0/users/{dave.pk}").content
    assert b"password" not in body and b"Passw0rd" not in body


def test_user_reads_updates_and_admin_flag(admin_client, alice, alice_client, bob):
    me = alice_client.get("/api/v2.0/users/current").json()
    assert me["username"] == "alice" and me["sysadmin_flag"] is False
    assert me["admin_role_in_auth"] is False and "realname" not in me
    assert (
        alice_client.put(
            f"/api/v2.0/users/{alice.pk}", {"realname": "Alice", "comment": "hi"}
        ).status_code
        == 200
    )
    assert alice_client.get("/api/v2.0/users/current").json()["realname"] == "Alice"
    assert alice_client.get(f"/api/v2.0/users/{bob.pk}").status_code == 403
    assert alice_client.get("/api/v2.0/users").status_code == 403
    assert (
        admin_client.put(
            f"/api/v2.0/users/{alice.pk}/sysadmin", {"sysadmin_flag": True}
        ).status_code
        == 200
    )
    assert alice_client.get("/api/v2.0/configurations").status_code == 200
    listing = admin_client.get("/api/v2.0/users")
    assert [u["username"] for u in listing.json()] == ["alice", "bob"]
    assert listing["X-Total-Count"] == "2"
    assert admin_client.get("/api/v2.0/users/99999").json()["errors"][0]["message"] == (
        "user 99999 not found"
    )


def test_password_change_and_old_credentials_stop_working(alice, alice_client, admin_client):
    url = f"/api/v2.0/users/{alice.pk}/password"
    wrong = alice_client.put(url, {"old_password": "nope", "new_password": "N3wPassword"})
    assert wrong.status_code == 403
    assert (
        alice_client.put(
            url, {"old_password": "Passw0rd1", "new_password": "N3wPassword"}
        ).status_code
        == 200
    )
    assert alice_client.get("/api/v2.0/users/search?username=ali").status_code == 401
    assert client_for(alice, "N3wPassword").get("/api/v2.0/users/current").status_code == 200
    assert admin_client.put(url, {"new_password": "Adm1nReset"}).status_code == 200


def test_user_search_and_delete(admin_client, alice, alice_client):
    UserFactory(username="alina")
    found = alice_client.get("/api/v2.0/users/search?username=ali&page_size=1")
    assert found.json() == [{"user_id": alice.pk, "username": "alice"}]
    assert found["X-Total-Count"] == "2"
    assert admin_client.delete(f"/api/v2.0/users/{alice.pk}").status_code == 200
    assert admin_client.get(f"/api/v2.0/users/{alice.pk}").status_code == 404


def test_user_groups(admin_client, alice_client):
    created = admin_client.post(
        "/api/v2.0/usergroups",
        {"group_name": "ops", "group_type": 1, "ldap_group_dn": "cn=ops,dc=example,dc=com"},
    )
    assert created.status_code == 201
    group = UserGroup.objects.get()
    assert created["Location"] == f"/api/v2.0/usergroups/{group.pk}"
    duplicate = admin_client.post(
        "/api/v2.0/usergroups",
        {"group_name": "ops2", "group_type": 1, "ldap_group_dn": "cn=ops,dc=example,dc=com"},
    )
    assert duplicate.status_code == 409
    assert admin_client.post("/api/v2.0/usergroups", {"group_type": 2}).status_code == 422
    assert admin_client.get(f"/api/v2.0/usergroups/{group.pk}").json() == {
        "group_name": "ops",
        "group_type": 1,
        "ldap_group_dn": "cn=ops,dc=example,dc=com",
    }
    assert (
        admin_client.put(
            f"/api/v2.0/usergroups/{group.pk}", {"group_name": "operations"}
        ).status_code
        == 200
    )
    listing = admin_client.get("/api/v2.0/usergroups").json()
    assert [g["group_name"] for g in listing] == ["operations"]
    assert alice_client.get("/api/v2.0/usergroups").status_code == 403
    search = alice_client.get("/api/v2.0/usergroups/search?groupname=oper").json()
    assert search == [{"group_name": "operations", "group_type": 1, "id": group.pk}]
    assert admin_client.delete(f"/api/v2.0/usergroups/{group.pk}").status_code == 200
    assert not UserGroup.objects.exists()


def test_labels_global_and_project(admin_client, alice, alice_client, bob):
    created = admin_client.post(
        "/api/v2.0/labels", {"name": "prod", "scope": "g", "color": "#FF0000"}
    )
    assert created.status_code == 201
    label = Label.objects.get()
    assert created["Location"] == f"/api/v2.0/labels/{label.pk}"
    assert admin_client.post("/api/v2.0/labels", {"name": "prod", "scope": "g"}).status_code == 409
    assert alice_client.post("/api/v2.0/labels", {"name": "x", "scope": "g"}).status_code == 403
    project = ProjectFactory(name="lab", owner=alice)
    own = alice_client.post(
        "/api/v2.0/labels", {"name": "prod", "scope": "p", "project_id": project.pk}
    )
    assert own.status_code == 201
    MemberFactory(project=project, user=bob, role=3)
    guest = client_for(bob)
    assert (
        guest.post(
            "/api/v2.0/labels", {"name": "qa", "scope": "p", "project_id": project.pk}
        ).status_code
        == 403
    )
    listing = guest.get(f"/api/v2.0/labels?scope=p&project_id={project.pk}").json()
    assert [(item["name"], item["scope"], item["project_id"]) for item in listing] == [
        ("prod", "p", project.pk)
    ]
    globals_ = alice_client.get("/api/v2.0/labels").json()
    assert [(item["name"], item["color"]) for item in globals_] == [("prod", "#FF0000")]
    assert "project_id" not in globals_[0]
    assert admin_client.put(f"/api/v2.0/labels/{label.pk}", {"name": "live"}).status_code == 200
    assert admin_client.get(f"/api/v2.0/labels/{label.pk}").json()["name"] == "live"
    assert admin_client.delete(f"/api/v2.0/labels/{label.pk}").status_code == 200
    assert admin_client.get(f"/api/v2.0/labels/{label.pk}").status_code == 404
    LabelFactory(name="other")
    assert alice_client.get("/api/v2.0/labels?scope=x").status_code == 400
    assert alice_client.get("/api/v2.0/labels?scope=").status_code == 400


def test_a_label_or_group_deleted_meanwhile_stays_deleted(alice):
    """An update holding the label (group) it read before a delete committed: 404, and the
    label is not inserted again (a full save did; the group's rename was a 500)."""
    label = LabelFactory()
    stale = Label.objects.get(pk=label.pk)
    label.delete()
    with pytest.raises(NotFound):
        labels.update_label(stale, "renamed", None, None)
    assert not Label.objects.exists()
    group = UserGroup.objects.create(group_name="ops", group_type=UserGroup.GroupType.HTTP)
    stale = UserGroup.objects.get(pk=group.pk)
    group.delete()
    with pytest.raises(NotFound):
        usergroups.rename_user_group(stale, "renamed")


@pytest.mark.parametrize("name", ["a,b", 'a"b', "a~b", "a#b", "a%b", "a$b"])
def test_usernames_harbor_refuses_are_400(admin_client, name):
    """Harbor's validateUserProfile: common.IllegalCharsInUsername."""
    response = admin_client.post("/api/v2.0/users", {**GOOD, "username": name})
    assert response.status_code == 400
    assert response.json() == {
        "errors": [{"code": "BAD_REQUEST", "message": "username contains illegal characters"}]
    }
    assert not User.objects.filter(username=name).exists()


def test_a_name_the_code_host_reads_as_another_account_is_409(admin_client, admin):
    """Harbor's names are case-sensitive, Gitea's are not, and the account signs in to the
    code host too: there `ADMIN` is `admin` (GET /users/ADMIN, ?sudo=ADMIN, a git URL
    /ADMIN/repo), and an organization's name is a user's. Harbor's answer for a taken name."""
    codehost = client_for(admin)
    assert codehost.post("/api/v1/orgs", {"username": "acme"}, format="json").status_code == 201
    assert codehost.get("/api/v1/users/ADMIN").json()["login"] == "admin"
    for name in ("ADMIN", "Admin", "ACME"):
        response = admin_client.post(
            "/api/v2.0/users", {**GOOD, "username": name, "email": f"{name}@example.com"}
        )
        assert response.status_code == 409, name
        assert response.json() == {
            "errors": [
                {
                    "code": "CONFLICT",
                    "message": f"user {name} or email {name}@example.com already exists",
                }
            ]
        }
    assert list(User.objects.values_list("username", flat=True)) == ["admin"]


@pytest.mark.parametrize("name", ["bob ", "a:b", "x" * 50, "api", "bü", "bob\n"])
def test_names_harbor_takes_but_gitea_cannot_have_no_code_hosting_namespace(admin_client, name):
    """Harbor creates them (only its six characters are illegal); the code host, whose
    names are alpha-dash-dot up to 40, gives such an account no namespace, so no git URL or
    API path names it: a clear 403 there, never a half-made user or a 500."""
    from codehost.models import Owner

    response = admin_client.post("/api/v2.0/users", {**GOOD, "username": name})
    assert response.status_code == 201, response.content
    user = User.objects.get(username=name)
    assert not Owner.objects.filter(user=user).exists()
    refused = client_for(user, GOOD["password"]).get("/api/v1/user")
    if ":" in name:
        # Basic credentials end the user name at the first colon (RFC 7617), in Harbor too.
        assert refused.status_code == 401
        return
    assert refused.status_code == 403
    assert refused.json()["message"] == "this account has no code hosting namespace"
