"""registry.ldap's client against the real slapd: searches, TLS, and servers that fail."""

import os
import time

import ldap
import pytest

from registry.ldap import client, directory
from registry.ldap.syntax import parse_url
from tests.registry_ldap.conftest import (
    ADMINS_DN,
    DEVELOPERS_DN,
    GROUPS,
    GUESTS_DN,
    OUTSIDERS_DN,
    directory_settings,
    person_dn,
)

pytestmark = pytest.mark.usefixtures("db", "seeded_directory")


def test_user_search_reads_name_mail_and_groups():
    (alice,) = directory.search_users(directory_settings(), "alice")
    assert alice.username == "alice"
    assert alice.realname == "Alice Liddell"
    assert alice.email == "alice@example.org"
    assert {dn.lower() for dn in alice.group_dns} == {DEVELOPERS_DN.lower(), OUTSIDERS_DN.lower()}


def test_user_search_is_exact_and_escapes_the_username():
    conf = directory_settings()
    assert directory.search_users(conf, "ali") == []
    assert directory.search_users(conf, "*") == []
    assert directory.search_users(conf, "alice)(uid=*") == []


def test_empty_username_lists_everyone_the_filter_keeps():
    names = {user.username for user in directory.search_users(directory_settings(), "")}
    assert {"alice", "bob", "carol", "dave", "erin"} <= names
    narrowed = directory_settings(ldap_filter="(!(uid=bob))")
    assert "bob" not in {user.username for user in directory.search_users(narrowed, "")}


def test_filter_without_parentheses_is_accepted_as_harbor_does():
    conf = directory_settings(ldap_filter="objectClass=inetOrgPerson")
    assert [user.username for user in directory.search_users(conf, "bob")] == ["bob"]


def test_group_search_by_name_and_by_dn():
    conf = directory_settings()
    (developers,) = directory.search_groups(conf, "developers")
    assert developers.name == "developers"
    assert developers.dn.lower() == DEVELOPERS_DN.lower()
    assert {group.name for group in directory.search_groups(conf, "")} == {
        "developers",
        "admins",
        "guests",
    }
    assert directory.group_by_dn(conf, ADMINS_DN).name == "admins"
    # Outside the group base DN, or missing: not a group of this configuration.
    assert directory.group_by_dn(conf, OUTSIDERS_DN) is None
    assert directory.group_by_dn(conf, f"cn=missing,{GROUPS}") is None
    with pytest.raises(client.DirectoryMisconfigured, match="invalid DN syntax"):
        directory.group_by_dn(conf, "not a dn")


def test_user_groups_are_kept_under_the_group_base_and_filter():
    conf = directory_settings()
    (alice,) = directory.search_users(conf, "alice")
    with client.connect(conf) as connection:
        dns = directory.user_group_dns(conf, alice, connection)
    assert {dn.lower() for dn in dns} == {DEVELOPERS_DN.lower()}
    no_match = directory_settings(ldap_group_search_filter="(objectClass=posixGroup)")
    with client.connect(no_match) as connection:
        assert directory.user_group_dns(no_match, alice, connection) == frozenset()


def test_wrong_bind_password_is_an_invalid_credential():
    conf = directory_settings(ldap_search_password="wrong")
    with pytest.raises(client.InvalidCredential, match="invalid credential"):
        directory.search_users(conf, "alice")


def test_closed_port_fails_at_once(closed_port):
    conf = directory_settings(ldap_url=f"ldap://127.0.0.1:{closed_port}")
    started = time.monotonic()
    with pytest.raises(client.DirectoryUnavailable, match="fail to ping LDAP server"):
        directory.search_users(conf, "alice")
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("scheme", ["ldap", "ldaps"])
def test_silent_server_times_out_within_ldap_timeout(silent_server, scheme):
    conf = directory_settings(ldap_url=f"{scheme}://127.0.0.1:{silent_server}", ldap_timeout=1)
    started = time.monotonic()
    with pytest.raises(client.DirectoryTimeout, match="ldap server network timeout"):
        directory.search_users(conf, "alice")
    assert time.monotonic() - started < 2.5


def test_ldaps_with_the_ca_bundle(settings):
    settings.REGISTRY_LDAP_CA_FILE = os.environ["TEST_LDAP_CA_FILE"]
    conf = directory_settings(ldap_url=os.environ["TEST_LDAPS_URL"])
    assert [user.email for user in directory.search_users(conf, "bob")] == ["bob@example.org"]


def test_ldaps_rejects_an_untrusted_certificate_unless_told_not_to_verify(settings):
    settings.REGISTRY_LDAP_CA_FILE = ""
    conf = directory_settings(ldap_url=os.environ["TEST_LDAPS_URL"])
    with pytest.raises(client.DirectoryUnavailable, match="self-signed certificate"):
        directory.search_users(conf, "bob")
    unverified = directory_settings(ldap_url=os.environ["TEST_LDAPS_URL"], ldap_verify_cert=False)
    assert [user.username for user in directory.search_users(unverified, "bob")] == ["bob"]


def test_starttls_upgrades_ldap_urls(settings):
    settings.REGISTRY_LDAP_START_TLS = True
    settings.REGISTRY_LDAP_CA_FILE = os.environ["TEST_LDAP_CA_FILE"]
    conf = directory_settings()
    with client.connect(conf) as connection:
        assert connection.get_option(ldap.OPT_X_TLS_VERSION).startswith("TLS")
        assert connection.whoami_s() == f"dn:{conf.search_dn}"
    # The same server without a trusted CA: the upgrade (so the bind) is refused.
    settings.REGISTRY_LDAP_CA_FILE = ""
    with pytest.raises(client.DirectoryUnavailable):
        directory.search_users(conf, "alice")


def test_ping_reports_harbors_reasons():
    directory.ping(directory_settings())
    with pytest.raises(client.DirectoryMisconfigured, match="empty search dn"):
        directory.ping(directory_settings(ldap_search_dn=""))
    with pytest.raises(client.InvalidCredential):
        directory.ping(directory_settings(ldap_search_password="nope"))
    with pytest.raises(client.DirectoryMisconfigured, match="unknown ldap protocol"):
        directory.ping(directory_settings(ldap_url="http://127.0.0.1"))


def test_url_reading_follows_harbor():
    assert parse_url("ldap.example.org").uri == "ldap://ldap.example.org:389"
    assert parse_url("ldaps://ldap.example.org").uri == "ldaps://ldap.example.org:636"
    assert parse_url("ldap://ldap.example.org:636").scheme == "ldaps"
    assert parse_url("ldap://[::1]:1389").uri == "ldap://[::1]:1389"
    with pytest.raises(ValueError, match="unknown ldap protocol"):
        parse_url("https://ldap.example.org")
    for host in ("a\x00b", "a b", ".x", "x" * 70 + ".org", "\udcff"):
        with pytest.raises(ValueError, match="illegal ldap url: invalid host"):
            parse_url(f"ldaps://{host}")


def test_search_password_never_in_reprs_or_messages(closed_port):
    conf = directory_settings(ldap_url=f"ldap://127.0.0.1:{closed_port}")
    assert "reader-secret" not in repr(conf)
    with pytest.raises(client.DirectoryError) as failure:
        directory.search_users(conf, "alice")
    assert "reader-secret" not in failure.value.message


def test_membership_follows_the_directory(directory_admin):
    conf = directory_settings()
    modify = [(ldap.MOD_ADD, "member", [person_dn("erin").encode()])]
    directory_admin.modify_s(GUESTS_DN, modify)
    try:
        (erin,) = directory.search_users(conf, "erin")
        assert GUESTS_DN.lower() in {dn.lower() for dn in erin.group_dns}
    finally:
        modify = [(ldap.MOD_DELETE, "member", [person_dn("erin").encode()])]
        directory_admin.modify_s(GUESTS_DN, modify)
    (erin,) = directory.search_users(conf, "erin")
    assert erin.group_dns == ()
