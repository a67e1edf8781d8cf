import pytest

from tests.storefront.conftest import StoreApi
from tests.storefront.factories import InstallationFactory, issue_token
from tests.storefront_webhooks.receiver import Receiver


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def insecure_webhooks(settings):
    """http:// and loopback webhook URLs, as the worker process gets from its environment."""
    settings.STOREFRONT_WEBHOOK_ALLOW_INSECURE = True
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True


@pytest.fixture
def installation(db):
    return InstallationFactory()


@pytest.fixture
def api(client, installation):
    return StoreApi(client, installation.store_id, issue_token(installation))
