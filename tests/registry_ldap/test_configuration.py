"""The directory settings through PUT/GET /configurations: validation, secrecy, effect."""

import pytest

from tests.registry_ldap.conftest import LDAP_CONFIGURATION, READER_PASSWORD, client_as

CONFIGURATIONS = "/api/v2.0/configurations"


@pytest.fixture
def configured_by_api(admin_client, seeded_directory):
    response = admin_client.put(CONFIGURATIONS, LDAP_CONFIGURATION, format="json")
    assert response.status_code == 200
    return admin_client


def test_search_password_is_accepted_but_never_returned(configured_by_api):
    response = configured_by_api.get(CONFIGURATIONS)
    body = response.json()
    assert body["ldap_url"] == {"value": LDAP_CONFIGURATION["ldap_url"], "editable": True}
    assert body["ldap_timeout"]["value"] == 3
    assert "ldap_search_password" not in body
    assert READER_PASSWORD not in response.content.decode()


def test_settings_apply_to_the_next_request(configured_by_api):
    assert client_as("alice", "alice-secret").get("/api/v2.0/users/current").status_code == 200
    response = configured_by_api.put(
        CONFIGURATIONS, {"ldap_base_dn": "ou=groups,dc=example,dc=org"}
    )
    assert response.status_code == 200
    assert configured_by_api.get("/api/v2.0/ldap/users/search", {"username": "bob"}).json() == []
    assert client_as("bob", "bob-secret").get("/api/v2.0/users/current").status_code == 401


@pytest.mark.parametrize(
    ("changes", "go_type"),
    [({"ldap_timeout": "5"}, "int64"), ({"ldap_verify_cert": "yes"}, "bool")],
)
def test_directory_settings_of_the_wrong_json_type_are_422(admin_client, db, changes, go_type):
    # Harbor binds the body to its typed Configurations model before the handler runs.
    key = next(iter(changes))
    response = admin_client.put(CONFIGURATIONS, changes, format="json")
    assert response.status_code == 422
    assert response.json()["errors"][0]["message"] == (
        'validation failure list:\nparsing configurations body from "" failed, because json: '
        f"cannot unmarshal string into Go struct field Configurations.{key} of type {go_type}"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ldap_url": "http://ldap.example.org"}, "ldap_url: unknown ldap protocol"),
        ({"ldap_url": ""}, "ldap_url cannot be empty"),
        ({"ldap_scope": 3}, "invalid value for ldap_scope: 3, allowed: [0, 1, 2]"),
        ({"ldap_group_search_scope": -1}, "invalid value for ldap_group_search_scope"),
        ({"ldap_timeout": 0}, "ldap_timeout should be between 1 and 300 seconds"),
        ({"ldap_base_dn": "not a dn"}, "invalid DN syntax for ldap_base_dn: not a dn"),
        ({"ldap_group_admin_dn": "x"}, "invalid DN syntax for ldap_group_admin_dn: x"),
        ({"ldap_uid": "uid)(cn=*"}, "invalid attribute name for ldap_uid: uid)(cn=*"),
        ({"ldap_filter": "(objectClass=person"}, "invalid filter syntax for ldap_filter"),
        (
            {"ldap_group_search_filter": "(objectClass=groupOfNames)"},
            "ldap_group_attribute_name and ldap_group_membership_attribute are required",
        ),
    ],
)
def test_invalid_directory_settings_are_refused(admin_client, db, changes, message):
    before = admin_client.get(CONFIGURATIONS).json()
    response = admin_client.put(CONFIGURATIONS, changes, format="json")
    assert response.status_code == 400
    assert message in response.json()["errors"][0]["message"]
    assert admin_client.get(CONFIGURATIONS).json() == before


def test_group_filter_with_its_attributes_is_accepted(admin_client, db):
    changes = {
        "ldap_group_search_filter": "objectClass=groupOfNames",
        "ldap_group_attribute_name": "cn",
    }
    assert admin_client.put(CONFIGURATIONS, changes, format="json").status_code == 200


def test_sign_in_settings_changes_drop_remembered_directory_sign_ins(configured_by_api):
    alice = client_as("alice", "alice-secret")
    assert alice.get("/api/v2.0/users/current").status_code == 200
    # The same values again change nothing.
    same = {"ldap_filter": LDAP_CONFIGURATION["ldap_filter"]}
    assert configured_by_api.put(CONFIGURATIONS, same, format="json").status_code == 200
    assert alice.get("/api/v2.0/users/current").status_code == 200
    response = configured_by_api.put(CONFIGURATIONS, {"ldap_filter": "(!(uid=alice))"})
    assert response.status_code == 200
    # Her Basic pair was remembered; it is not any more, and the directory now says no.
    assert alice.get("/api/v2.0/users/current").status_code == 401
    # The local admin is untouched.
    assert configured_by_api.get(CONFIGURATIONS).status_code == 200
