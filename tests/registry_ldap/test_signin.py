"""LDAP sign-in (Basic and session) when auth_mode is ldap_auth, as Harbor does it."""

import time

import ldap
import pytest
from django.contrib.auth.models import User
from django.test import Client

from registry import configuration
from registry.ldap import signin
from tests.registry.factories import PASSWORD
from tests.registry_ldap.conftest import ADMINS_DN, client_as, person_dn

CURRENT = "/api/v2.0/users/current"
CONFIGURATIONS = "/api/v2.0/configurations"


def test_directory_user_signs_in_and_is_created(ldap_configured):
    response = client_as("alice", "alice-secret").get(CURRENT)
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "alice"
    assert body["email"] == "alice@example.org"
    assert body["realname"] == "Alice Liddell"
    assert body["sysadmin_flag"] is False
    assert body["admin_role_in_auth"] is False
    assert not User.objects.get(username="alice").has_usable_password()
    # The next sign-in finds the same account.
    assert client_as("alice", "alice-secret").get(CURRENT).json()["user_id"] == body["user_id"]
    assert User.objects.filter(username="alice").count() == 1


def test_wrong_directory_password_is_anonymous(ldap_configured):
    assert client_as("alice", "wrong").get(CURRENT).status_code == 401
    assert client_as("nobody", "wrong").get(CURRENT).status_code == 401
    assert not User.objects.filter(username__in=["alice", "nobody"]).exists()


def test_directory_passwords_do_not_work_under_db_auth(db, seeded_directory):
    assert client_as("bob", "bob-secret").get(CURRENT).status_code == 401
    assert not User.objects.filter(username="bob").exists()


def test_local_admin_keeps_working(admin, ldap_configured):
    response = client_as("admin", PASSWORD).get(CONFIGURATIONS)
    assert response.status_code == 200
    # The directory's own "admin" entry never signs in as the local account.
    assert client_as("admin", "directory-admin-secret").get(CURRENT).status_code == 401


def test_members_of_the_admin_group_are_system_admins(ldap_configured):
    dave = client_as("dave", "dave-secret")
    body = dave.get(CURRENT).json()
    assert body["sysadmin_flag"] is False
    assert body["admin_role_in_auth"] is True
    assert dave.get(CONFIGURATIONS).status_code == 200
    assert dave.get("/api/v2.0/ldap/users/search", {"username": "bob"}).status_code == 200
    alice = client_as("alice", "alice-secret")
    response = alice.get(CONFIGURATIONS)
    assert response.status_code == 403
    assert response.json()["errors"][0]["message"] == "alice"


def test_leaving_the_admin_group_takes_effect_when_the_group_cache_expires(
    ldap_configured, directory_admin, monkeypatch
):
    # As if every request came after the group cache expired.
    monkeypatch.setattr(signin, "GROUP_CACHE_SECONDS", 0)
    dave = client_as("dave", "dave-secret")
    assert dave.get(CONFIGURATIONS).status_code == 200
    change = [(ldap.MOD_DELETE, "member", [person_dn("dave").encode()])]
    directory_admin.modify_s(ADMINS_DN, change)
    try:
        assert dave.get(CONFIGURATIONS).status_code == 403
        assert dave.get(CURRENT).json()["admin_role_in_auth"] is False
    finally:
        change = [(ldap.MOD_ADD, "member", [person_dn("dave").encode()])]
        directory_admin.modify_s(ADMINS_DN, change)


def test_leaving_ldap_auth_drops_the_directory_admin_role(ldap_configured):
    dave = client_as("dave", "dave-secret")
    assert dave.get(CONFIGURATIONS).status_code == 200
    configuration.update({"auth_mode": "db_auth"})
    assert dave.get(CONFIGURATIONS).status_code == 403


def test_session_sign_in_with_the_directory_password(ldap_configured):
    browser = Client(enforce_csrf_checks=False)
    response = browser.post("/accounts/login/", {"username": "bob", "password": "bob-secret"})
    assert response.status_code == 302
    response = browser.get(CURRENT)
    assert response.status_code == 200
    assert response.json()["username"] == "bob"
    failed = Client().post("/accounts/login/", {"username": "bob", "password": "nope"})
    assert failed.status_code == 200
    assert "_auth_user_id" not in failed.wsgi_request.session


@pytest.mark.parametrize("fixture", ["silent_server", "closed_port"])
def test_sign_in_against_a_directory_that_is_down(ldap_configured, fixture, request):
    port = request.getfixturevalue(fixture)
    configuration.update({"ldap_url": f"ldap://127.0.0.1:{port}", "ldap_timeout": 1})
    started = time.monotonic()
    response = client_as("carol", "carol-secret").get(CURRENT)
    assert time.monotonic() - started < 2.5
    assert response.status_code == 401
    browser = Client()
    response = browser.post("/accounts/login/", {"username": "carol", "password": "carol-secret"})
    assert response.status_code == 200
    assert "_auth_user_id" not in response.wsgi_request.session


def test_configuration_changes_apply_to_the_next_sign_in(ldap_configured):
    assert client_as("erin", "erin-secret").get(CURRENT).status_code == 200
    configuration.update({"ldap_filter": "(!(uid=bob))"})
    assert client_as("bob", "bob-secret").get(CURRENT).status_code == 401
    configuration.update({"ldap_filter": "", "ldap_uid": "mail"})
    response = client_as("bob@example.org", "bob-secret").get(CURRENT)
    assert response.json()["username"] == "bob@example.org"
