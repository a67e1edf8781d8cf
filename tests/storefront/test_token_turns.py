"""The token lookup and the product pages are statements kept per process: apps of two
stores (one in two languages, one in one) taking turns each get their own store's
catalog, and a suspension, an uninstall or a new token acts on the very next request."""

import pytest
from django.utils import timezone

from storefront.models import AccessToken, Store
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import (
    InstallationFactory,
    ProductFactory,
    StoreFactory,
    VariantFactory,
    issue_token,
)

pytestmark = pytest.mark.django_db


def _names(response) -> list:
    assert response.status_code == 200, response.content
    return [product["name"] for product in response.json()]


def test_two_stores_apps_taking_turns(client):
    one = InstallationFactory()
    two = InstallationFactory(store=StoreFactory(languages=["pt"], main_language="pt"))
    for installation, label in ((one, "uno"), (two, "dois")):
        product = ProductFactory(store=installation.store, name={"es": label, "pt": label})
        VariantFactory(product=product)
    api_one = StoreApi(client, one.store_id, issue_token(one))
    api_two = StoreApi(client, two.store_id, issue_token(two))
    for _ in range(2):
        assert _names(api_one.get("products")) == [{"es": "uno", "pt": "uno"}]
        assert _names(api_two.get("products")) == [{"pt": "dois"}]
        # A token names its own store only.
        crossed = StoreApi(client, two.store_id, api_one.token).get("products")
        assert crossed.status_code in (401, 403), crossed.content
    Store.objects.filter(pk=two.store_id).update(suspended_at=timezone.now())
    assert api_two.get("products").status_code == 402
    assert _names(api_one.get("products")) == [{"es": "uno", "pt": "uno"}]
    old = api_one.token
    api_one.token = issue_token(one)
    assert StoreApi(client, one.store_id, old).get("products").status_code == 401
    assert api_one.get("products").status_code == 200
    AccessToken.objects.filter(installation=one).delete()
    assert api_one.get("products").status_code == 401
