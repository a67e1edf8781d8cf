import base64

import pytest
from rest_framework.test import APIClient

from tests.codehost.factories import PASSWORD, UserFactory


def basic(username: str, password: str = PASSWORD) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


@pytest.fixture(autouse=True)
def git_root(settings, tmp_path):
    """Each test gets its own repository root."""
    settings.CODEHOST_GIT_ROOT = tmp_path / "git"
    return settings.CODEHOST_GIT_ROOT


class Gitea:
    """An API client for /api/v1 acting as one user (or anonymous)."""

    def __init__(self, user=None, auth: str | None = None):
        self.user = user
        self.client = APIClient()
        if auth:
            self.client.credentials(HTTP_AUTHORIZATION=auth)
        elif user is not None:
            self.client.credentials(HTTP_AUTHORIZATION=basic(user.username))

    def __getattr__(self, method):
        call = getattr(self.client, method)

        def request(path, data=None, **kwargs):
            if data is not None:
                kwargs.setdefault("format", "json")
            return call("/api/v1" + path, data, **kwargs)

        return request


@pytest.fixture
def as_user():
    """as_user(user) -> a client signed in as `user` with Basic auth; as_user() anonymous."""
    return Gitea


@pytest.fixture
def admin(db):
    return UserFactory(username="root", is_superuser=True, is_staff=True)


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def acme(alice, as_user):
    """Organization `acme` created by alice through the API (alice is in its Owners team)."""
    from codehost.models import Owner

    response = as_user(alice).post("/orgs", {"username": "acme"})
    assert response.status_code == 201, response.content
    return Owner.objects.get(name="acme")


@pytest.fixture
def owners_team(acme):
    from codehost.models import Team

    return Team.objects.get(org=acme, name="Owners")
