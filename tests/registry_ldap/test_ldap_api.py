"""The /ldap endpoints through real URLs, against the seeded slapd."""

import logging
import time

import pytest
from django.contrib.auth.models import User

from registry import configuration
from tests.registry_ldap.conftest import (
    ADMINS_DN,
    DEVELOPERS_DN,
    GROUPS,
    LDAP_CONFIGURATION,
    OUTSIDERS_DN,
    READER_PASSWORD,
)

PING = "/api/v2.0/ldap/ping"
USERS = "/api/v2.0/ldap/users/search"
IMPORT = "/api/v2.0/ldap/users/import"
GROUPS_SEARCH = "/api/v2.0/ldap/groups/search"


def error(response) -> tuple[str, str]:
    (only,) = response.json()["errors"]
    return only["code"], only["message"]


@pytest.mark.parametrize(
    ("method", "url"),
    [("post", PING), ("get", USERS), ("post", IMPORT), ("get", GROUPS_SEARCH)],
)
def test_admin_only(method, url, anon, user_client, ldap_configured):
    response = getattr(anon, method)(url, {}, format="json")
    assert response.status_code == 401
    assert error(response) == ("UNAUTHORIZED", "unauthorized")
    response = getattr(user_client, method)(url, {}, format="json")
    assert response.status_code == 403
    assert error(response) == ("FORBIDDEN", "localuser")


# --- ping -----------------------------------------------------------------------------------


def ping_body(**changes):
    keys = ("ldap_url", "ldap_search_dn", "ldap_search_password", "ldap_base_dn", "ldap_uid")
    body = {key: LDAP_CONFIGURATION[key] for key in keys}
    body.update(ldap_scope=2, ldap_verify_cert=True, **changes)
    return {key: value for key, value in body.items() if value is not None}


def test_ping_with_a_body_tests_that_configuration(admin_client, seeded_directory):
    response = admin_client.post(PING, ping_body(), format="json")
    assert response.status_code == 200
    assert response.json() == {"success": True}


def test_ping_reports_a_wrong_password(admin_client, seeded_directory):
    response = admin_client.post(PING, ping_body(ldap_search_password="nope"), format="json")
    assert response.json() == {"success": False, "message": "error: invalid credential"}


def test_ping_without_a_body_tests_the_stored_configuration(admin_client, ldap_configured):
    assert admin_client.post(PING).json() == {"success": True}
    configuration.update({"ldap_search_password": "changed"})
    assert admin_client.post(PING).json() == {
        "success": False,
        "message": "error: invalid credential",
    }


def test_ping_missing_password_falls_back_to_the_stored_one(admin_client, ldap_configured):
    body = ping_body(ldap_search_password=None)
    assert admin_client.post(PING, body, format="json").json() == {"success": True}
    body = ping_body(ldap_search_password="")
    assert admin_client.post(PING, body, format="json").json() == {"success": True}


def test_stored_password_is_never_sent_to_another_server(
    admin_client, ldap_configured, silent_server
):
    body = ping_body(ldap_url=f"ldap://127.0.0.1:{silent_server}", ldap_search_password=None)
    response = admin_client.post(PING, body, format="json")
    assert response.json() == {"success": False, "message": "error: empty password"}


def test_ping_empty_search_dn(admin_client, seeded_directory):
    response = admin_client.post(PING, ping_body(ldap_search_dn=""), format="json")
    assert response.json() == {"success": False, "message": "error: empty search dn"}


def test_ping_closed_port_and_silent_server_answer_within_the_timeout(
    admin_client, ldap_configured, closed_port, silent_server
):
    configuration.update({"ldap_timeout": 1})
    response = admin_client.post(
        PING, ping_body(ldap_url=f"ldap://127.0.0.1:{closed_port}"), format="json"
    )
    assert response.status_code == 200
    assert response.json()["success"] is False
    assert response.json()["message"].startswith("error: fail to ping LDAP server")
    for scheme in ("ldap", "ldaps"):
        started = time.monotonic()
        body = ping_body(ldap_url=f"{scheme}://127.0.0.1:{silent_server}")
        response = admin_client.post(PING, body, format="json")
        assert time.monotonic() - started < 2.5
        assert response.json() == {
            "success": False,
            "message": "error: ldap server network timeout",
        }


def test_ping_body_types_are_validated(admin_client, seeded_directory):
    response = admin_client.post(PING, {"ldap_scope": "deep"}, format="json")
    assert response.status_code == 422
    code, message = error(response)
    assert code == "UNPROCESSABLE_ENTITY"
    assert "ldap_scope" in message


def test_search_password_is_never_logged(admin_client, ldap_configured, closed_port, caplog):
    caplog.set_level(logging.DEBUG)
    admin_client.post(PING, ping_body(ldap_search_password="nope"), format="json")
    admin_client.post(PING, ping_body(ldap_url=f"ldap://127.0.0.1:{closed_port}"), format="json")
    admin_client.get(USERS, {"username": "alice"})
    configuration.update({"ldap_url": f"ldap://127.0.0.1:{closed_port}"})
    admin_client.get(USERS, {"username": "alice"})
    assert READER_PASSWORD not in caplog.text


# --- user search ----------------------------------------------------------------------------


def test_user_search(admin_client, ldap_configured):
    response = admin_client.get(USERS, {"username": "alice"})
    assert response.status_code == 200
    assert response.json() == [
        {"username": "alice", "realname": "Alice Liddell", "email": "alice@example.org"}
    ]
    assert admin_client.get(USERS, {"username": "nobody"}).json() == []
    everyone = {user["username"] for user in admin_client.get(USERS).json()}
    assert {"alice", "bob", "carol", "dave", "erin"} <= everyone


def test_user_search_uses_the_stored_configuration_at_once(admin_client, ldap_configured):
    configuration.update({"ldap_filter": "(!(uid=alice))"})
    assert admin_client.get(USERS, {"username": "alice"}).json() == []
    configuration.update({"ldap_uid": "mail"})
    response = admin_client.get(USERS, {"username": "bob@example.org"})
    assert [user["username"] for user in response.json()] == ["bob@example.org"]


def test_user_search_when_not_configured(admin_client, db):
    response = admin_client.get(USERS, {"username": "alice"})
    assert response.status_code == 409
    assert error(response) == ("CONFLICT", "LDAP is not configured: ldap_url is empty")
    response = admin_client.get(GROUPS_SEARCH, {"groupdn": "not a dn"})
    assert error(response) == ("CONFLICT", "LDAP is not configured: ldap_url is empty")
    response = admin_client.post(IMPORT, {"ldap_uid_list": ["alice"]}, format="json")
    assert error(response) == ("CONFLICT", "LDAP is not configured: ldap_url is empty")
    assert admin_client.post(PING).json() == {
        "success": False,
        "message": "error: ldap_url is empty: LDAP is not configured",
    }


def test_user_search_against_a_down_directory(admin_client, ldap_configured, closed_port):
    configuration.update({"ldap_url": f"ldap://127.0.0.1:{closed_port}"})
    response = admin_client.get(USERS, {"username": "alice"})
    assert response.status_code == 503
    code, message = error(response)
    assert code == "SERVICE_UNAVAILABLE"
    assert message.startswith("fail to ping LDAP server")


def test_user_search_against_a_silent_directory(admin_client, ldap_configured, silent_server):
    configuration.update({"ldap_url": f"ldap://127.0.0.1:{silent_server}", "ldap_timeout": 1})
    started = time.monotonic()
    response = admin_client.get(USERS, {"username": "alice"})
    assert time.monotonic() - started < 2.5
    assert response.status_code == 503
    assert error(response) == ("SERVICE_UNAVAILABLE", "ldap server network timeout")


def test_user_search_with_a_wrong_bind_password(admin_client, ldap_configured):
    configuration.update({"ldap_search_password": "wrong"})
    response = admin_client.get(USERS, {"username": "alice"})
    assert response.status_code == 400
    assert error(response) == ("BAD_REQUEST", "invalid credential")


# --- group search ---------------------------------------------------------------------------


def test_group_search_by_name(admin_client, ldap_configured):
    response = admin_client.get(GROUPS_SEARCH, {"groupname": "developers"})
    assert response.status_code == 200
    assert response.json() == [{"group_name": "developers", "ldap_group_dn": DEVELOPERS_DN}]


def test_group_search_by_dn(admin_client, ldap_configured):
    response = admin_client.get(GROUPS_SEARCH, {"groupdn": ADMINS_DN})
    assert response.json() == [{"group_name": "admins", "ldap_group_dn": ADMINS_DN}]


def test_group_search_name_wins_over_dn(admin_client, ldap_configured):
    response = admin_client.get(GROUPS_SEARCH, {"groupname": "guests", "groupdn": ADMINS_DN})
    assert [group["group_name"] for group in response.json()] == ["guests"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"groupname": "nobody"}, "resource not found: group name:nobody, group DN:"),
        ({"groupdn": OUTSIDERS_DN}, f"resource not found: group name:, group DN:{OUTSIDERS_DN}"),
        ({"groupdn": f"cn=x,{GROUPS}"}, f"resource not found: group name:, group DN:cn=x,{GROUPS}"),
        ({}, "resource not found: group name:, group DN:"),
    ],
)
def test_group_search_not_found(admin_client, ldap_configured, params, message):
    response = admin_client.get(GROUPS_SEARCH, params)
    assert response.status_code == 404
    assert error(response) == ("NOT_FOUND", message)


def test_group_search_bad_dn(admin_client, ldap_configured):
    response = admin_client.get(GROUPS_SEARCH, {"groupdn": "not a dn"})
    assert response.status_code == 400
    assert error(response) == ("BAD_REQUEST", "invalid DN syntax. DN: not a dn")


# --- import ---------------------------------------------------------------------------------


def test_import_creates_users_with_mail_and_real_name(admin_client, ldap_configured):
    response = admin_client.post(IMPORT, {"ldap_uid_list": ["alice", "bob"]}, format="json")
    assert response.status_code == 200
    assert response.content == b""
    alice = User.objects.get(username="alice")
    assert alice.email == "alice@example.org"
    assert alice.harbor_profile.realname == "Alice Liddell"
    assert not alice.has_usable_password()
    # Importing again is a success, and changes nothing.
    response = admin_client.post(IMPORT, {"ldap_uid_list": ["alice"]}, format="json")
    assert response.status_code == 200
    assert User.objects.filter(username="alice").count() == 1


def test_import_lists_the_failures(admin_client, ldap_configured):
    body = {"ldap_uid_list": ["carol", "nobody", ""]}
    response = admin_client.post(IMPORT, body, format="json")
    assert response.status_code == 404
    assert response.json() == [
        {"uid": "nobody", "error": "unknown_user"},
        {"uid": "", "error": "empty_uid"},
    ]
    # The others were imported all the same.
    assert User.objects.get(username="carol").email == ""


def test_import_from_a_down_directory_fails_once(admin_client, ldap_configured, silent_server):
    configuration.update({"ldap_url": f"ldap://127.0.0.1:{silent_server}", "ldap_timeout": 1})
    started = time.monotonic()
    body = {"ldap_uid_list": ["alice", "bob", "carol"]}
    response = admin_client.post(IMPORT, body, format="json")
    assert time.monotonic() - started < 2.5
    assert response.status_code == 503
    assert not User.objects.filter(username__in=["alice", "bob", "carol"]).exists()


def test_import_body_is_validated(admin_client, ldap_configured):
    response = admin_client.post(IMPORT, {"ldap_uid_list": "alice"}, format="json")
    assert response.status_code == 422
    assert error(response)[0] == "UNPROCESSABLE_ENTITY"


def test_ping_body_must_be_an_object_when_sent(admin_client, ldap_configured):
    response = admin_client.post(PING, "null", content_type="application/json")
    assert response.status_code == 422
    response = admin_client.post(PING, {"ldap_verify_cert": 0}, format="json")
    assert response.status_code == 422
    assert "ldap_verify_cert" in error(response)[1]


def test_import_refuses_a_body_with_a_nul_character_whole(admin_client, ldap_configured):
    # Every service refuses JSON strings holding NUL (PostgreSQL text cannot store them).
    body = {"ldap_uid_list": ["a\x00b", "bob"]}
    response = admin_client.post(IMPORT, body, format="json")
    assert response.status_code == 400
    assert error(response)[0] == "BAD_REQUEST"
    assert not User.objects.filter(username="bob").exists()
