"""PATCH /products/stock-price: price and stock of up to 50 variants across products
(Tiendanube's product resource docs), per-variant `success`."""

import logging
from decimal import Decimal

import pytest

from storefront.models import Variant
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import (
    InstallationFactory,
    ProductFactory,
    VariantFactory,
    issue_token,
)

pytestmark = pytest.mark.django_db


def patch(api, body, **kwargs):
    return api.request("PATCH", "products/stock-price", body, **kwargs)


@pytest.fixture
def catalog(store):
    mug, shirt = ProductFactory(store=store), ProductFactory(store=store)
    return {
        "mug": (mug, VariantFactory(product=mug, price="10.00", stock=1)),
        "small": (shirt, VariantFactory(product=shirt, price="20.00", stock=2)),
        "large": (shirt, VariantFactory(product=shirt, price="20.00", stock=3)),
    }


def test_the_docs_example_updates_price_and_stock(api, catalog, caplog):
    mug, mug_variant = catalog["mug"]
    shirt, small = catalog["small"]
    _, large = catalog["large"]
    mug_change = {"id": mug_variant.pk, "price": 1000, "inventory_levels": [{"stock": 300}]}
    shirt_changes = [
        {"id": small.pk, "price": 222.03},
        {"id": large.pk, "inventory_levels": [{"stock": 100}]},
    ]
    body = [{"id": mug.pk, "variants": [mug_change]}, {"id": shirt.pk, "variants": shirt_changes}]
    with caplog.at_level(logging.INFO, logger="storefront.events"):
        response = patch(api, body)
    assert response.status_code == 200
    assert response.json() == [
        {"id": mug.pk, "variants": [{"id": mug_variant.pk, "success": True}]},
        {
            "id": shirt.pk,
            "variants": [{"id": small.pk, "success": True}, {"id": large.pk, "success": True}],
        },
    ]
    assert response["X-Rate-Limit-Limit"] == "40"
    mug_variant.refresh_from_db(), small.refresh_from_db(), large.refresh_from_db()
    assert (mug_variant.price, mug_variant.stock) == (Decimal("1000.00"), 300)
    assert (small.price, small.stock) == (Decimal("222.03"), 2)
    assert (large.price, large.stock) == (Decimal("20.00"), 100)
    events = [r.getMessage() for r in caplog.records if r.name == "storefront.events"]
    assert len(events) == 2 and all("product/updated" in event for event in events)
    listed = api.get(f"products/{shirt.pk}").json()["variants"]
    assert [v["price"] for v in listed] == ["222.03", "20.00"]


def test_stock_on_the_variant_and_unlimited_stock(api, catalog):
    shirt, small = catalog["small"]
    _, large = catalog["large"]
    changes = [{"id": small.pk, "stock": ""}, {"id": large.pk, "stock": 7, "price": "31.5"}]
    body = [{"id": shirt.pk, "variants": changes}]
    assert patch(api, body).status_code == 200
    small.refresh_from_db(), large.refresh_from_db()
    assert small.stock is None and small.price == Decimal("20.00")
    assert (large.stock, large.price) == (7, Decimal("31.50"))


def test_variants_not_of_that_product_in_this_store_fail_alone(api, catalog):
    mug, mug_variant = catalog["mug"]
    _, small = catalog["small"]
    foreign = VariantFactory(product=ProductFactory(), price="5.00")
    body = [
        {"id": mug.pk, "variants": [{"id": small.pk, "price": 1}, {"id": mug_variant.pk, "price": 2}]},  # noqa: E501
        {"id": foreign.product_id, "variants": [{"id": foreign.pk, "price": 3}]},
        {"id": 987654321, "variants": [{"id": 1, "price": 4}]},
    ]  # fmt: skip
    answer = patch(api, body).json()
    assert [[v["success"] for v in product["variants"]] for product in answer] == [
        [False, True],
        [False],
        [False],
    ]
    small.refresh_from_db(), foreign.refresh_from_db()
    assert small.price == Decimal("20.00") and foreign.price == Decimal("5.00")
    assert Variant.objects.get(pk=mug_variant.pk).price == Decimal("2.00")


def test_invalid_fields_refuse_the_whole_request(api, catalog):
    mug, mug_variant = catalog["mug"]
    response = patch(api, [{"id": mug.pk, "variants": [{"id": mug_variant.pk, "price": "abc"}]}])
    assert response.status_code == 422
    assert response.json() == {
        "code": 422,
        "message": "Unprocessable Entity",
        "description": "Validation error",
        "price": ["The price must be a number."],
    }
    negative = [{"id": mug.pk, "variants": [{"id": mug_variant.pk, "price": 9, "stock": -1}]}]
    assert patch(api, negative).json()["stock"] == ["The stock must be at least 0."]
    mug_variant.refresh_from_db()
    assert (mug_variant.price, mug_variant.stock) == (Decimal("10.00"), 1)
    assert patch(api, [{"id": mug.pk}]).json()["variants"] == [
        "The variants field must be an array of variants."
    ]
    assert patch(api, [{"id": "x", "variants": []}]).json()["id"] == [
        "The id must be a positive integer."
    ]
    shape = patch(api, {"id": mug.pk})
    assert shape.status_code == 400
    assert shape.json()["description"] == "Invalid input format"


def test_more_than_50_variants_is_422(api, catalog):
    mug, mug_variant = catalog["mug"]
    body = [{"id": mug.pk, "variants": [{"id": mug_variant.pk, "price": 1}] * 26}] * 2
    response = patch(api, body)
    assert response.status_code == 422
    assert response.json() == {
        "code": 422,
        "message": "Unprocessable Entity",
        "description": "Too many variants sent for update",
    }
    fifty = [*body[:1], {"id": mug.pk, "variants": body[0]["variants"][:24]}]
    assert patch(api, fifty).status_code == 200


def test_needs_write_products(client, catalog, store):
    reader = InstallationFactory(store=store, scopes="read_products")
    api = StoreApi(client, store.pk, issue_token(reader))
    mug, mug_variant = catalog["mug"]
    response = patch(api, [{"id": mug.pk, "variants": [{"id": mug_variant.pk, "price": 1}]}])
    assert response.status_code == 403
    assert Variant.objects.get(pk=mug_variant.pk).price == Decimal("10.00")
