"""The verified-credential cache never outlives the directory's word on an LDAP password:
once the directory refuses a password or accepts another one for the account, the
passwords verified before must be checked again; and entries of directory users are
kept for BASIC_AUTH_DIRECTORY_CACHE_SECONDS at most."""

import time

import ldap
import pytest

from tests.registry_ldap.conftest import (  # noqa: F401 - fixtures
    client_as,
    directory_admin,
    fresh_configuration,
    ldap_configured,
    person_dn,
    seeded_directory,
)

CURRENT = "/api/v2.0/users/current"
OLD, NEW = "erin-secret", "erin-changed-1"


@pytest.fixture
def erin_password(directory_admin):  # noqa: F811
    """Sets erin's directory password; the seeded one is put back afterwards."""

    def change(password: str) -> None:
        replace = [(ldap.MOD_REPLACE, "userPassword", [password.encode()])]
        directory_admin.modify_s(person_dn("erin"), replace)

    yield change
    change(OLD)


def signed_in(password: str) -> int:
    return client_as("erin", password).get(CURRENT).status_code


def test_a_new_directory_password_drops_the_old_one(ldap_configured, erin_password):  # noqa: F811
    assert signed_in(OLD) == 200  # verified by the directory, now cached
    erin_password(NEW)
    assert signed_in(NEW) == 200
    assert signed_in(OLD) == 401


def test_a_refused_password_drops_what_was_cached(ldap_configured, erin_password):  # noqa: F811
    assert signed_in(OLD) == 200
    erin_password(NEW)
    assert signed_in("not-it") == 401  # the directory answered for erin
    assert signed_in(OLD) == 401


def test_directory_entries_expire_sooner(ldap_configured, erin_password, settings):  # noqa: F811
    settings.BASIC_AUTH_DIRECTORY_CACHE_SECONDS = 1
    assert signed_in(OLD) == 200
    erin_password(NEW)
    time.sleep(1.5)
    assert signed_in(OLD) == 401


def test_a_culled_generation_never_brings_an_old_password_back(
    ldap_configured,  # noqa: F811
    erin_password,
):
    """The file cache culls a third of its entries when full (and Redis may evict): the
    account's generation can be lost while an entry verified under it is kept. The next
    directory answer must not give it back the value that entry was cached under."""
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    assert signed_in(OLD) == 200  # the first directory answer for erin: cached under it
    erin = get_user_model().objects.get(username="erin")
    cache.delete(f"basic-auth-generation:{erin.pk}")  # culled
    erin_password(NEW)
    assert signed_in(NEW) == 200  # the directory answered again
    assert signed_in(OLD) == 401
