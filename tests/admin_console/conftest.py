import pytest
from django.contrib.auth import get_user_model

# Fixtures of the browser tests: a loopback webhook receiver, git
# sources for mirrors.
from tests.codehost_migrations.conftest import local_imports, source_repo  # noqa: F401
from tests.storefront_webhooks.conftest import receiver  # noqa: F401

STAFF_PASSWORD = "Console-Passw0rd"


@pytest.fixture
def operator(db):
    """A site administrator (superuser, staff)."""
    return get_user_model().objects.create_superuser(
        "operator", "operator@example.com", STAFF_PASSWORD
    )


@pytest.fixture
def console(client, operator):
    client.force_login(operator)
    return client


@pytest.fixture
def bystander(db):
    """An ordinary account of all three services: not staff."""
    return get_user_model().objects.create_user("bystander", "b@example.com", STAFF_PASSWORD)
