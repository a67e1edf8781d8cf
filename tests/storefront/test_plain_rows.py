"""Product pages are read with one cursor per table and encoded by orjson: the bytes on
the wire are those DRF's encoder writes for the same data, decimals keep their places on
both databases, and a response orjson cannot encode falls back to DRF."""

import json

import pytest
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from config.plain_json import PlainJSONRenderer, mark_plain
from tests.storefront.factories import ProductFactory, VariantFactory

pytestmark = pytest.mark.django_db


def drf_bytes(data) -> bytes:
    return JSONRenderer().render(data)


def test_product_page_bytes_are_drfs(api, store):
    product = ProductFactory(
        store=store,
        name={"es": "Té \u2028 verde \u2029 «ñ»", "pt": "Chá 🍵"},
        attributes=[{"es": "Talle", "pt": "Tamanho"}],
    )
    # Fractional values are floats in SQLite: Django's 15-digit rounding, then places.
    VariantFactory(product=product, price="199.90", weight="0.125", cost="0.10", stock=None)
    VariantFactory(product=product, price="1500", weight="2", compare_at_price=None)
    response = api.get("products", {"per_page": 200})
    assert response.status_code == 200
    assert response.content == drf_bytes(json.loads(response.content))
    assert b"\\u2028" in response.content and b"\\u2029" in response.content
    first, second = response.json()[0]["variants"]
    assert (first["price"], first["weight"], first["cost"]) == ("199.90", "0.125", "0.10")
    assert first["stock_management"] is False
    assert (second["price"], second["weight"], second["compare_at_price"]) == (
        "1500.00",
        "2.000",
        None,
    )
    one = api.get(f"products/{product.pk}")
    assert one.content == drf_bytes(json.loads(one.content))
    assert json.loads(one.content) == response.json()[0]


@pytest.mark.parametrize(
    "data",
    [
        {"too big for orjson": 2**70},
        {1: "an integer key"},
    ],
)
def test_what_orjson_refuses_is_rendered_by_drf(data):
    response = mark_plain(Response(data))
    assert PlainJSONRenderer().render(data, renderer_context={"response": response}) == (
        drf_bytes(data)
    )


def test_unmarked_responses_and_indent_go_drfs_way():
    data = {"ratio": 1e-05}  # orjson would write 1e-5
    plain = {"response": mark_plain(Response(data))}
    assert PlainJSONRenderer().render(data, renderer_context={}) == b'{"ratio":1e-05}'
    indented = PlainJSONRenderer().render(data, "application/json; indent=2", plain)
    assert indented == JSONRenderer().render(data, "application/json; indent=2")
