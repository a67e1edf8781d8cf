"""The suite runs against the real components the test setup started: PostgreSQL and
Redis, or (TEST_BACKEND=sqlite) the embedded default of `make run`."""

import os

import ldap
import pytest
from django.conf import settings
from django.core.cache import cache, caches
from django.db import connection


@pytest.mark.django_db
@pytest.mark.postgres_only(reason="the scaled setup's components")
def test_database_is_postgresql_and_cache_redis():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        assert cursor.fetchone()[0]
    assert caches["default"].__class__.__name__ == "RedisCache"
    assert settings.CELERY_BROKER_URL.startswith("redis://")


@pytest.mark.django_db
@pytest.mark.sqlite_only(reason="the embedded default's components")
def test_database_is_sqlite_in_wal_mode_and_cache_files():
    assert connection.vendor == "sqlite"
    assert str(connection.settings_dict["NAME"]).startswith(str(settings.DATA_DIR))
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] >= 5000
        # A page cache of 1 MiB (KiB when negative) per connection, one per web thread.
        cursor.execute("PRAGMA cache_size")
        assert cursor.fetchone()[0] == -1024
    assert caches["default"].__class__.__name__ == "FileBasedCache"
    assert settings.CELERY_BROKER_URL == "filesystem://"
    assert not settings.REDIS_URL


def test_cache_answers():
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


@pytest.mark.postgres_only(reason="the Redis cache of the scaled setup")
def test_redis_cache_keeps_one_client_per_pool():
    """Building a redis-py client per cache operation cost more than the round trip."""
    backend = caches["default"]._cache
    assert backend.get_client() is backend.get_client()
    cache.set("probe-reuse", 1, 10)
    assert cache.get("probe-reuse") == 1
