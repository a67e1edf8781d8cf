import asyncio
import base64

import pytest
from harborapi import HarborAsyncClient
from rest_framework.test import APIClient

from registry import configuration
from tests.registry.factories import PASSWORD, UserFactory


def basic(username: str, password: str = PASSWORD) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


@pytest.fixture
def anon():
    return APIClient()


def client_for(user, password: str = PASSWORD) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(user.username, password))
    return client


@pytest.fixture
def admin(db):
    return UserFactory(username="admin", is_superuser=True, is_staff=True)


@pytest.fixture
def admin_client(admin):
    return client_for(admin)


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def alice_client(alice):
    return client_for(alice)


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def bob_client(bob):
    return client_for(bob)


@pytest.fixture(autouse=True)
def fresh_configuration():
    """The cache outlives each test's rolled-back rows: start every test from the defaults."""
    configuration.invalidate()
    yield
    configuration.invalidate()


# harborapi, Harbor's own async client, against a live server.
def run(coroutine):
    return asyncio.run(coroutine)


@pytest.fixture
def harbor(live_server):
    UserFactory(username="admin", is_superuser=True, is_staff=True)

    def client(username="admin", password=PASSWORD):
        return HarborAsyncClient(
            url=live_server.url + "/api/v2.0", username=username, secret=password
        )

    return client
