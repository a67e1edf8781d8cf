"""The embedded default's file caches cull entries once full (MAX_ENTRIES): a cull must
never lift a sign-in throttle. Real culls, with a tiny MAX_ENTRIES."""

import os

import pytest
from django.core.cache import caches

from config.file_cache import file_caches
from tests.registry.factories import PASSWORD
from tests.security.test_signin_throttle import alice, get  # noqa: F401 - alice: a fixture

pytestmark = pytest.mark.django_db

MAX_ENTRIES = 12
URL = "/api/v2.0/users/current"


@pytest.fixture
def tiny_file_caches(settings, tmp_path):
    configured = file_caches(tmp_path)
    for alias in configured.values():
        alias["OPTIONS"] = {"MAX_ENTRIES": MAX_ENTRIES}
    settings.CACHES = configured
    return tmp_path


@pytest.fixture
def throttled(tiny_file_caches, alice):  # noqa: F811 - the fixture imported above
    statuses = [get(URL, "alice", f"guess{n}").status_code for n in range(11)]
    assert statuses == [401] * 10 + [429]


def test_culls_of_the_shared_cache_leave_the_counters(throttled):
    shared = caches["default"]
    for number in range(5 * MAX_ENTRIES):  # remembered sign-ins, rate-limit state...
        shared.set(f"other-entry-{number}", number)
    assert len(os.listdir(shared._dir)) <= MAX_ENTRIES + 1  # it did cull
    assert get(URL, "alice", PASSWORD).status_code == 429


def test_culls_of_the_signin_cache_sweep_expired_entries_first(throttled, tiny_file_caches):
    counters = caches["signin"]
    # Counters of earlier windows (expired, still on disk until read or culled).
    for number in range(5 * MAX_ENTRIES):
        counters.set(f"old-counter-{number}", 1, timeout=0)
    assert get(URL, "alice", PASSWORD).status_code == 429
    assert len(os.listdir(tiny_file_caches / "cache-signin")) < MAX_ENTRIES  # swept
    # Only this account from this address is throttled.
    assert get(URL, "alice", "guess", "198.51.100.9").status_code == 401
