"""The suite runs against the real components the test setup started."""

import os

import ldap
import pytest
from django.core.cache import cache, caches
from django.db import connection


@pytest.mark.django_db
def test_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        assert cursor.fetchone()[0]


def test_cache_is_redis():
    assert caches["default"].__class__.__name__ == "RedisCache"
    cache.set("probe", {"a": 1}, 10)
    assert cache.get("probe") == {"a": 1}


def test_slapd_answers_with_and_without_tls():
    plain = ldap.initialize(os.environ["TEST_LDAP_URL"])
    plain.simple_bind_s(os.environ["TEST_LDAP_ADMIN_DN"], os.environ["TEST_LDAP_ADMIN_PASSWORD"])
    base = plain.search_s(os.environ["TEST_LDAP_BASE_DN"], ldap.SCOPE_BASE)
    assert base[0][0] == os.environ["TEST_LDAP_BASE_DN"]

    secure = ldap.initialize(os.environ["TEST_LDAPS_URL"])
    secure.set_option(ldap.OPT_X_TLS_CACERTFILE, os.environ["TEST_LDAP_CA_FILE"])
    secure.set_option(ldap.OPT_X_TLS_NEWCTX, 0)
    secure.simple_bind_s(os.environ["TEST_LDAP_ADMIN_DN"], os.environ["TEST_LDAP_ADMIN_PASSWORD"])
    assert secure.whoami_s() == f"dn:{os.environ['TEST_LDAP_ADMIN_DN']}"
