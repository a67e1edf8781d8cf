"""A verified Basic pair is remembered, and forgotten when the account changes."""

import pytest
from django.contrib.auth.models import User

from config.auth import check_password_cached, parse_basic


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice", password="wonderland")


def test_verified_pair_is_served_from_cache(alice, rf, settings):
    assert check_password_cached(rf.get("/"), "alice", "wonderland") == alice
    # With no backend left to check passwords, only the remembered pair can answer.
    settings.AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.BaseBackend"]
    assert check_password_cached(rf.get("/"), "alice", "wonderland") == alice
    assert check_password_cached(rf.get("/"), "alice", "other") is None


def test_password_change_drops_the_remembered_pair(alice, rf):
    assert check_password_cached(rf.get("/"), "alice", "wonderland") == alice
    alice.set_password("looking-glass")
    alice.save()
    assert check_password_cached(rf.get("/"), "alice", "wonderland") is None
    assert check_password_cached(rf.get("/"), "alice", "looking-glass") == alice


def test_deactivation_drops_the_remembered_pair(alice, rf):
    assert check_password_cached(rf.get("/"), "alice", "wonderland") == alice
    alice.is_active = False
    alice.save()
    assert check_password_cached(rf.get("/"), "alice", "wonderland") is None


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Basic YWxpY2U6d29uZGVybGFuZA==", ("alice", "wonderland")),
        ("basic YWxpY2U6Og==", ("alice", ":")),
        ("Basic !!!", None),
        ("Basic YWxpY2U=", None),
        ("Bearer abc", None),
        ("", None),
    ],
)
def test_parse_basic(header, expected):
    assert parse_basic(header) == expected
