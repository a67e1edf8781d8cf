"""Members designated from the directory, and the project roles LDAP groups give."""

import pytest
from django.contrib.auth.models import User

from registry import configuration
from registry.models import ProjectMember, Role, UserGroup
from tests.registry.factories import ProjectFactory
from tests.registry_ldap.conftest import DEVELOPERS_DN, GROUPS, client_as


@pytest.fixture
def project(admin, ldap_configured):
    return ProjectFactory(name="team", owner=admin)


MEMBERS = "/api/v2.0/projects/team/members"


def add_member(client, body):
    return client.post(MEMBERS, body, format="json")


def test_unknown_directory_user_is_onboarded_as_member(admin_client, project):
    response = add_member(admin_client, {"role_id": 3, "member_user": {"username": "erin"}})
    assert response.status_code == 201
    erin = User.objects.get(username="erin")
    assert erin.email == "erin@example.org"
    assert erin.harbor_profile.realname == "Erin Nobody"
    member = ProjectMember.objects.get(project=project, user=erin)
    assert response["Location"] == f"{MEMBERS}/{member.pk}"
    assert member.role == Role.GUEST
    # Erin signs in later with the directory password: the same account, with the role.
    erin_client = client_as("erin", "erin-secret")
    assert erin_client.get("/api/v2.0/projects/team").json()["current_user_role_id"] == 3


def test_user_unknown_to_the_directory_is_not_found(admin_client, project):
    response = add_member(admin_client, {"role_id": 3, "member_user": {"username": "nobody"}})
    assert response.status_code == 404
    assert response.json()["errors"][0]["message"] == "user nobody is not found"


def test_directory_users_are_not_onboarded_under_db_auth(admin_client, project):
    configuration.update({"auth_mode": "db_auth"})
    response = add_member(admin_client, {"role_id": 3, "member_user": {"username": "erin"}})
    assert response.status_code == 404
    assert not User.objects.filter(username="erin").exists()


def test_group_member_by_dn_creates_the_group(admin_client, project):
    body = {"role_id": 2, "member_group": {"ldap_group_dn": DEVELOPERS_DN}}
    response = add_member(admin_client, body)
    assert response.status_code == 201
    group = UserGroup.objects.get(ldap_group_dn__iexact=DEVELOPERS_DN)
    assert group.group_name == "developers"
    assert group.group_type == UserGroup.GroupType.LDAP
    assert add_member(admin_client, body).status_code == 409
    assert UserGroup.objects.filter(group_type=UserGroup.GroupType.LDAP).count() == 1
    listed = admin_client.get(MEMBERS).json()
    assert {"entity_name": "developers", "entity_type": "g", "role_id": 2}.items() <= next(
        row for row in listed if row["entity_type"] == "g"
    ).items()


@pytest.mark.parametrize(
    ("dn", "message"),
    [
        (f"cn=missing,{GROUPS}", f"LDAP Group DN is not found: DN:cn=missing,{GROUPS}"),
        ("not a dn", "invalid DN syntax. DN: not a dn"),
    ],
)
def test_group_dn_that_is_no_directory_group(admin_client, project, dn, message):
    response = add_member(admin_client, {"role_id": 2, "member_group": {"ldap_group_dn": dn}})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == message
    assert not UserGroup.objects.exists()


def test_group_membership_gives_project_roles(admin_client, project):
    body = {"role_id": 2, "member_group": {"ldap_group_dn": DEVELOPERS_DN}}
    assert add_member(admin_client, body).status_code == 201
    alice = client_as("alice", "alice-secret")
    response = alice.get("/api/v2.0/projects/team")
    assert response.status_code == 200
    assert response.json()["current_user_role_id"] == 2
    names = [p["name"] for p in alice.get("/api/v2.0/projects").json()]
    assert names == ["team"]
    # Carol is not in the group: the private project is hidden from her.
    carol = client_as("carol", "carol-secret")
    assert carol.get("/api/v2.0/projects/team").status_code == 403
    assert carol.get("/api/v2.0/projects").json() == []


def test_group_roles_end_with_ldap_auth(admin_client, project):
    body = {"role_id": 2, "member_group": {"ldap_group_dn": DEVELOPERS_DN}}
    assert add_member(admin_client, body).status_code == 201
    alice = client_as("alice", "alice-secret")
    assert alice.get("/api/v2.0/projects/team").status_code == 200
    configuration.update({"auth_mode": "db_auth"})
    # Still signed in through the remembered Basic pair, but no directory groups any more.
    assert alice.get("/api/v2.0/projects/team").status_code == 403


def test_project_list_of_a_group_member_has_constant_queries(
    admin, admin_client, ldap_configured, django_assert_max_num_queries
):
    group_body = {"role_id": 2, "member_group": {"ldap_group_dn": DEVELOPERS_DN}}
    for number in range(12):
        ProjectFactory(name=f"p{number:02}", owner=admin)
        path = f"/api/v2.0/projects/p{number:02}/members"
        assert admin_client.post(path, group_body, format="json").status_code == 201
    alice = client_as("alice", "alice-secret")
    assert alice.get("/api/v2.0/projects").status_code == 200
    counts = []
    for size in (3, 12):
        with django_assert_max_num_queries(20) as captured:
            response = alice.get("/api/v2.0/projects", {"page_size": size})
        assert len(response.json()) == size
        assert {p["current_user_role_id"] for p in response.json()} == {2}
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_ldap_user_groups_must_exist_in_the_directory(admin_client, ldap_configured):
    body = {"group_name": "devs", "group_type": 1, "ldap_group_dn": f"cn=missing,{GROUPS}"}
    response = admin_client.post("/api/v2.0/usergroups", body, format="json")
    assert response.status_code == 400
    message = response.json()["errors"][0]["message"]
    assert message == f"LDAP Group DN is not found: DN:cn=missing,{GROUPS}"
    body["ldap_group_dn"] = DEVELOPERS_DN
    assert admin_client.post("/api/v2.0/usergroups", body, format="json").status_code == 201
    assert UserGroup.objects.get(ldap_group_dn=DEVELOPERS_DN).group_name == "devs"
