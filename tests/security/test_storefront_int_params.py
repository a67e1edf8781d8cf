"""Every integer parameter of the store API (query, path, body) beyond int64 is a 4xx in
Tiendanube's error format, never a 500 nor a query the database overflows on."""

import pytest

from tests.security.storefront_support import tenant
from tests.storefront.factories import (
    CategoryFactory,
    ProductFactory,
    ProductImageFactory,
    ScriptFactory,
    VariantFactory,
)
from tests.storefront_webhooks.factories import WebhookFactory

pytestmark = pytest.mark.django_db

TOO_BIG = 2**63
TOO_SMALL = -(2**63) - 1
HUGE = 10**30
VALUES = [TOO_BIG, TOO_SMALL, HUGE]


@pytest.fixture
def world(client):
    """A store whose app may do everything, with one of each resource."""
    owner = tenant(app__scopes="read_products,write_products,write_scripts")
    store = owner.installation.store
    product = ProductFactory(store=store)
    variant = VariantFactory(product=product)
    image = ProductImageFactory(product=product)
    category = CategoryFactory(store=store)
    script = ScriptFactory(store=store, app=owner.installation.app)
    webhook = WebhookFactory(installation=owner.installation)
    ids = {
        "p": product.pk,
        "v": variant.pk,
        "i": image.pk,
        "c": category.pk,
        "s": script.pk,
        "w": webhook.pk,
    }
    return owner.api(client), ids


def assert_tiendanube_4xx(response):
    assert 400 <= response.status_code < 500, (response.status_code, response.content)
    body = response.json()
    # Field errors ({"field": [...]}) or the envelope ({"code", "message", "description"}).
    assert isinstance(body, dict) and body
    if "code" in body:
        assert body["code"] == response.status_code
        assert {"message", "description"} <= set(body)
    else:
        for messages in body.values():
            assert isinstance(messages, list) and messages, body
            # Readable sentences, nested errors included (never a Python repr).
            assert all(isinstance(text, str) and "ErrorDetail" not in text for text in messages)


QUERY = [
    ("products", "since_id"),
    ("products", "page"),
    ("products", "per_page"),
    ("products", "category_id"),
    ("products", "min_stock"),
    ("products", "max_stock"),
    ("products", "ids"),
    ("products/{p}/variants", "since_id"),
    ("products/{p}/variants", "page"),
    ("products/{p}/images", "since_id"),
    ("products/{p}/images", "position"),
    ("categories", "since_id"),
    ("categories", "parent_id"),
    ("categories", "page"),
    ("scripts", "since_id"),
    ("scripts", "per_page"),
    ("webhooks", "since_id"),
    ("webhooks", "page"),
]


@pytest.mark.parametrize("value", VALUES, ids=["above", "below", "huge"])
@pytest.mark.parametrize(("path", "name"), QUERY)
def test_query_integers_beyond_int64_are_4xx(world, path, name, value):
    api, ids = world
    assert_tiendanube_4xx(api.get(path.format(**ids), {name: value}))


PATHS = [
    ("GET", "products/{x}"),
    ("PUT", "products/{x}"),
    ("DELETE", "products/{x}"),
    ("GET", "products/{x}/variants"),
    ("GET", "products/{p}/variants/{x}"),
    ("PUT", "products/{p}/variants/{x}"),
    ("DELETE", "products/{p}/variants/{x}"),
    ("GET", "products/{x}/images"),
    ("GET", "products/{p}/images/{x}"),
    ("DELETE", "products/{p}/images/{x}"),
    ("GET", "categories/{x}"),
    ("DELETE", "categories/{x}"),
    ("GET", "scripts/{x}"),
    ("DELETE", "scripts/{x}"),
    ("GET", "webhooks/{x}"),
    ("DELETE", "webhooks/{x}"),
]


@pytest.mark.parametrize(("method", "path"), PATHS)
def test_path_integers_beyond_int64_are_4xx(world, method, path):
    api, ids = world
    for value in (TOO_BIG, HUGE):
        body = {} if method == "PUT" else None
        response = api.request(method, path.format(x=value, **ids), body)
        assert_tiendanube_4xx(response)


def test_a_store_id_beyond_int64_is_4xx(client, world):
    api, _ = world
    for value in (TOO_BIG, HUGE):
        api.store_id = value
        assert_tiendanube_4xx(api.get("products"))
        assert_tiendanube_4xx(api.get("store"))


# Bodies with "X" where the out-of-range integer goes and "P"/"V" for existing ids.
IMAGE = "https://a.test/a.png"
BODIES = [
    ("POST", "products", {"name": "n", "categories": ["X"]}),
    ("POST", "products", {"name": "n", "variants": [{"stock": "X"}]}),
    ("POST", "products", {"name": "n", "variants": [{"position": "X"}]}),
    ("POST", "products", {"name": "n", "variants": [{"image_id": "X"}]}),
    ("POST", "products", {"name": "n", "images": [{"src": IMAGE, "position": "X"}]}),
    ("PUT", "products/{p}", {"categories": ["X"]}),
    ("POST", "products/{p}/variants", {"values": [], "stock": "X"}),
    ("POST", "products/{p}/variants", {"values": [], "image_id": "X"}),
    ("POST", "products/{p}/variants", {"values": [], "position": "X"}),
    ("PUT", "products/{p}/variants/{v}", {"stock": "X"}),
    ("PUT", "products/{p}/variants/{v}", {"image_id": "X"}),
    ("PUT", "products/{p}/variants", [{"id": "X", "stock": 1}]),
    ("POST", "products/{p}/variants/stock", {"action": "replace", "value": "X"}),
    ("POST", "products/{p}/variants/stock", {"action": "replace", "value": 1, "id": "X"}),
    ("PATCH", "products/stock-price", [{"id": "X", "variants": [{"id": "V", "stock": 1}]}]),
    ("PATCH", "products/stock-price", [{"id": "P", "variants": [{"id": "X", "stock": 1}]}]),
    ("PATCH", "products/stock-price", [{"id": "P", "variants": [{"id": "V", "stock": "X"}]}]),
    ("POST", "products/{p}/images", {"src": IMAGE, "position": "X"}),
    ("PUT", "products/{p}/images/{i}", {"position": "X"}),
    ("POST", "categories", {"name": "c", "parent": "X"}),
    ("PUT", "categories/{c}", {"parent": "X"}),
]


def filled(template, values: dict):
    if isinstance(template, dict):
        return {key: filled(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [filled(item, values) for item in template]
    return values.get(template, template) if isinstance(template, str) else template


@pytest.mark.parametrize("value", VALUES, ids=["above", "below", "huge"])
@pytest.mark.parametrize(("method", "path", "body"), BODIES)
def test_body_integers_beyond_int64_are_4xx(world, method, path, body, value):
    api, ids = world
    sent = filled(body, {"X": value, "P": ids["p"], "V": ids["v"]})
    assert_tiendanube_4xx(api.request(method, path.format(**ids), sent))
