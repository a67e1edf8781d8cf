"""Project members and project metadata."""

import pytest

from registry.models import ProjectMember, ProjectMetadata
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, UserGroupFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(alice):
    return ProjectFactory(name="team", owner=alice)


def test_add_member_by_user_id_and_username(alice_client, project, bob):
    response = alice_client.post(
        "/api/v2.0/projects/team/members", {"role_id": 3, "member_user": {"user_id": bob.pk}}
    )
    assert response.status_code == 201
    member = ProjectMember.objects.get(project=project, user=bob)
    assert response["Location"] == f"/api/v2.0/projects/team/members/{member.pk}"
    carol = UserFactory(username="carol")
    by_name = alice_client.post(
        f"/api/v2.0/projects/{project.pk}/members",
        {"role_id": 2, "member_user": {"username": "carol"}},
    )
    assert by_name.status_code == 201
    assert by_name["Location"].startswith(f"/api/v2.0/projects/{project.pk}/members/")
    assert ProjectMember.objects.get(user=carol).role == 2


def test_add_member_errors(alice_client, project, bob):
    url = "/api/v2.0/projects/team/members"
    alice_client.post(url, {"role_id": 3, "member_user": {"user_id": bob.pk}})
    duplicate = alice_client.post(url, {"role_id": 2, "member_user": {"user_id": bob.pk}})
    assert duplicate.status_code == 409
    assert duplicate.json()["errors"][0] == {
        "code": "CONFLICT",
        "message": "The project member specified already exist",
    }
    none = alice_client.post(url, {"role_id": 2})
    assert none.status_code == 400
    assert none.json()["errors"][0]["message"] == (
        "at least one of member_user or member_group must be provided"
    )
    assert (
        alice_client.post(url, {"role_id": 2, "member_user": {"user_id": 9999}}).status_code == 400
    )
    unknown = alice_client.post(url, {"role_id": 2, "member_user": {"username": "ghost"}})
    assert unknown.status_code == 404
    assert unknown.json()["errors"][0]["message"] == "user ghost is not found"
    carol = UserFactory()
    bad_role = alice_client.post(url, {"role_id": 9, "member_user": {"user_id": carol.pk}})
    assert bad_role.status_code == 400
    assert alice_client.post(url, {"role_id": "x"}).status_code == 422


def test_add_group_member_by_id_and_dn(alice_client, project):
    group = UserGroupFactory(group_name="devs")
    ldap = UserGroupFactory(
        group_name="ops", group_type=1, ldap_group_dn="cn=ops,ou=groups,dc=example,dc=com"
    )
    url = "/api/v2.0/projects/team/members"
    assert (
        alice_client.post(url, {"role_id": 2, "member_group": {"id": group.pk}}).status_code == 201
    )
    by_dn = alice_client.post(
        url, {"role_id": 3, "member_group": {"ldap_group_dn": ldap.ldap_group_dn}}
    )
    assert by_dn.status_code == 201
    listing = alice_client.get(url).json()
    assert [(m["entity_name"], m["entity_type"], m["role_name"]) for m in listing] == [
        ("alice", "u", "projectAdmin"),
        ("devs", "g", "developer"),
        ("ops", "g", "guest"),
    ]


def test_list_get_update_delete_member(alice_client, project, bob):
    member = MemberFactory(project=project, user=bob, role=3)
    url = f"/api/v2.0/projects/team/members/{member.pk}"
    assert alice_client.get(url).json() == {
        "entity_id": bob.pk,
        "entity_name": "bob",
        "entity_type": "u",
        "id": member.pk,
        "project_id": project.pk,
        "role_id": 3,
        "role_name": "guest",
    }
    assert alice_client.put(url, {"role_id": 2}).status_code == 200
    assert ProjectMember.objects.get(pk=member.pk).role == 2
    response = alice_client.get("/api/v2.0/projects/team/members?entityname=bob")
    assert [m["entity_name"] for m in response.json()] == ["bob"]
    assert response["X-Total-Count"] == "2"
    assert alice_client.delete(url).status_code == 200
    assert alice_client.get(url).status_code == 404
    assert alice_client.delete(url).status_code == 200


def test_member_role_matrix(project, bob):
    MemberFactory(project=project, user=bob, role=3)
    guest = client_for(bob)
    assert guest.get("/api/v2.0/projects/team/members").status_code == 200
    assert (
        guest.post(
            "/api/v2.0/projects/team/members", {"role_id": 3, "member_user": {"username": "alice"}}
        ).status_code
        == 403
    )
    limited = UserFactory()
    MemberFactory(project=project, user=limited, role=5)
    assert client_for(limited).get("/api/v2.0/projects/team/members").status_code == 403


def test_promoted_member_can_add_others(project, bob, alice_client):
    member = MemberFactory(project=project, user=bob, role=3)
    alice_client.put(f"/api/v2.0/projects/team/members/{member.pk}", {"role_id": 1})
    carol = UserFactory(username="carol")
    response = client_for(bob).post(
        "/api/v2.0/projects/team/members", {"role_id": 3, "member_user": {"user_id": carol.pk}}
    )
    assert response.status_code == 201


def test_metadata_crud_both_path_forms(admin_client, project):
    for url in ("/api/v2.0/projects/team/metadatas/", "/api/v2.0/projects/team/metadatas"):
        assert admin_client.get(url).json() == {"public": "false"}
    assert (
        admin_client.post("/api/v2.0/projects/team/metadatas", {"auto_scan": "1"}).status_code
        == 200
    )
    assert ProjectMetadata.objects.get(name="auto_scan").value == "true"
    conflict = admin_client.post("/api/v2.0/projects/team/metadatas/", {"auto_scan": "false"})
    assert conflict.status_code == 409
    assert conflict.json()["errors"][0]["message"] == (
        f"metadata auto_scan already exists for project {project.pk}"
    )
    two = admin_client.post(
        "/api/v2.0/projects/team/metadatas", {"prevent_vul": "true", "severity": "low"}
    )
    assert two.json()["errors"][0]["message"] == "only allow one key/value pair"
    bad_key = admin_client.post("/api/v2.0/projects/team/metadatas", {"colour": "red"})
    assert bad_key.json()["errors"][0]["message"] == "invalid key: colour"
    bad_value = admin_client.post("/api/v2.0/projects/team/metadatas", {"severity": "awful"})
    assert bad_value.json()["errors"][0]["message"] == "invalid value: awful"
    assert (
        admin_client.post("/api/v2.0/projects/team/metadatas", {"severity": 3}).status_code == 422
    )
    one = "/api/v2.0/projects/team/metadatas/auto_scan"
    assert admin_client.get(one).json() == {"auto_scan": "true"}
    assert admin_client.put(one, {"auto_scan": "False"}).status_code == 200
    assert admin_client.get(one).json() == {"auto_scan": "false"}
    assert admin_client.delete(one).status_code == 200
    assert admin_client.get(one).json() == {}


def test_metadata_permissions(alice_client, project, bob):
    # Harbor grants listing all keys to no project role; one key is read by admins/maintainers.
    assert alice_client.get("/api/v2.0/projects/team/metadatas").status_code == 403
    assert alice_client.get("/api/v2.0/projects/team/metadatas/public").status_code == 200
    assert (
        alice_client.post("/api/v2.0/projects/team/metadatas", {"auto_scan": "true"}).status_code
        == 200
    )
    MemberFactory(project=project, user=bob, role=2)
    assert client_for(bob).get("/api/v2.0/projects/team/metadatas/public").status_code == 403
