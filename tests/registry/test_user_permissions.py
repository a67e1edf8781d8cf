"""GET /users/current/permissions: the caller's policies in a `/project/{id}` scope."""

import pytest

from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory

PATH = "/api/v2.0/users/current/permissions"


def _pairs(response) -> set[tuple[str, str]]:
    assert response.status_code == 200, response.content
    return {(p["resource"], p["action"]) for p in response.json()}


@pytest.fixture
def private(alice):
    return ProjectFactory(name="private", owner=alice)


@pytest.fixture
def public(alice):
    return ProjectFactory(name="public", owner=alice, public=True)


@pytest.mark.django_db
def test_anonymous_gets_401(anon):
    response = anon.get(PATH, {"scope": "/project/1"})
    assert response.status_code == 401
    assert response.json()["errors"][0]["code"] == "UNAUTHORIZED"


@pytest.mark.django_db
@pytest.mark.parametrize("scope", [None, "", "/system", "/project/", "/project/x", "project/1"])
def test_a_scope_naming_no_project_lists_nothing(alice_client, private, scope):
    params = {} if scope is None else {"scope": scope}
    response = alice_client.get(PATH, params)
    assert response.status_code == 200 and response.content == b"[]"


@pytest.mark.django_db
def test_project_admin_holds_every_project_policy_but_metadata_list(alice_client, private):
    pairs = _pairs(alice_client.get(PATH, {"scope": f"/project/{private.pk}"}))
    base = f"/project/{private.pk}"
    assert {(base, "read"), (base, "update"), (base, "delete")} <= pairs
    assert {(f"{base}/member", "create"), (f"{base}/repository", "push")} <= pairs
    assert (f"{base}/repository", "pull") in pairs
    assert (f"{base}/metadata", "list") not in pairs


@pytest.mark.django_db
def test_records_are_action_then_resource(alice_client, private):
    response = alice_client.get(PATH, {"scope": f"/project/{private.pk}"})
    assert response.content.startswith(b'[{"action":"read","resource":"/project/')


@pytest.mark.django_db
def test_guest_holds_read_policies_only(private, bob):
    MemberFactory(project=private, user=bob, role=3)
    pairs = _pairs(client_for(bob).get(PATH, {"scope": f"/project/{private.pk}"}))
    base = f"/project/{private.pk}"
    assert (base, "read") in pairs and (f"{base}/member", "list") in pairs
    assert (f"{base}/repository", "pull") in pairs
    assert (f"{base}/repository", "push") not in pairs
    assert (base, "update") not in pairs and (f"{base}/member", "create") not in pairs


@pytest.mark.django_db
def test_non_member_holds_nothing_in_a_private_project(private, bob_client):
    assert bob_client.get(PATH, {"scope": f"/project/{private.pk}"}).content == b"[]"


@pytest.mark.django_db
def test_non_member_holds_the_public_policies_of_a_public_project(public, bob_client):
    relative = {"scope": f"/project/{public.pk}", "relative": "true"}
    assert _pairs(bob_client.get(PATH, relative)) == {
        (".", "read"),
        ("repository", "list"),
        ("repository", "pull"),
        ("artifact", "list"),
        ("artifact", "read"),
        ("artifact-addition", "read"),
        ("tag", "list"),
        ("accessory", "list"),
        ("label", "list"),
        ("label", "read"),
    }


@pytest.mark.django_db
def test_relative_resources_and_a_narrower_scope(alice_client, private):
    base = f"/project/{private.pk}"
    pairs = _pairs(alice_client.get(PATH, {"scope": base, "relative": "true"}))
    assert {(".", "read"), ("member", "create"), ("artifact-label", "create")} <= pairs
    # A scope below the project lists only what lies under it, relative to it.
    narrow = _pairs(alice_client.get(PATH, {"scope": f"{base}/repository", "relative": "1"}))
    assert narrow == {(".", a) for a in ("list", "read", "update", "delete", "pull", "push")}
    # Without relative, every policy of the project is listed whatever follows the id.
    full = _pairs(alice_client.get(PATH, {"scope": f"{base}/repository"}))
    assert (base, "read") in full


@pytest.mark.django_db
def test_sysadmin_holds_everything_even_in_a_missing_project(admin_client):
    pairs = _pairs(admin_client.get(PATH, {"scope": "/project/424242"}))
    assert ("/project/424242/metadata", "list") in pairs
    assert ("/project/424242", "delete") in pairs


@pytest.mark.django_db
def test_a_missing_project_gives_a_user_nothing(bob_client):
    assert bob_client.get(PATH, {"scope": "/project/424242"}).content == b"[]"


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["2", "tru", "nope"])
def test_malformed_relative_is_422(alice_client, value):
    response = alice_client.get(PATH, {"scope": "/project/1", "relative": value})
    assert response.status_code == 422
    message = f'validation failure list:\nrelative in query must be of type bool: "{value}"'
    assert response.json()["errors"][0]["message"] == message


@pytest.mark.parametrize("value", ["yes", "on", ""])
def test_relative_takes_go_swagger_booleans(alice_client, value):
    # swag.ConvertBool's words; an empty value is the default, as go-swagger binds it.
    assert alice_client.get(PATH, {"scope": "/project/1", "relative": value}).status_code == 200


@pytest.mark.django_db
def test_an_out_of_range_project_id_lists_nothing(admin_client):
    assert admin_client.get(PATH, {"scope": f"/project/{2**63}"}).content == b"[]"


@pytest.mark.django_db
def test_constant_queries(alice_client, private, django_assert_max_num_queries):
    alice_client.get(PATH)
    with django_assert_max_num_queries(5):
        alice_client.get(PATH, {"scope": f"/project/{private.pk}"})
