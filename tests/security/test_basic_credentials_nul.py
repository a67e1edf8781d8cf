"""Basic credentials whose username holds a NUL name no account (PostgreSQL text cannot
even hold one): wrong credentials, 401, never a 500 from the account lookup."""

import base64

import pytest
from rest_framework.test import APIClient

from tests.security.codehost_support import owner

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/user",
        "/api/v1/users/alice",
        "/alice/r.git/info/refs?service=git-upload-pack",
        "/api/v2.0/users/current",
    ],
)
def test_a_username_holding_a_nul_is_wrong_credentials(path):
    owner("alice")
    token = base64.b64encode(b"ali\x00ce:secret").decode()
    response = APIClient().get(path, HTTP_AUTHORIZATION=f"Basic {token}")
    assert response.status_code == 401, response.content


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/v1/user", 401),
        ("/alice/r.git/info/refs?service=git-upload-pack", 401),
        ("/api/v2.0/users/current", 401),
        ("/v2/", 401),
        # The token service answers an anonymous caller with an anonymous token.
        ("/service/token?service=harbor-registry", 200),
    ],
)
def test_a_basic_header_that_is_not_ascii_is_no_credentials(path, status):
    """HTTP headers arrive as latin-1: base64 of such a value raised ValueError (a 500)."""
    owner("alice")
    response = APIClient().get(path, HTTP_AUTHORIZATION="Basic \xff\xfe")
    assert response.status_code == status, response.content
