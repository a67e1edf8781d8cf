"""Product pages written as JSON by the database (SQLite's or PostgreSQL's SQL, the
backend under test) are the very bytes Python's rendering gives, and values the SQL
does not write are rendered by Python."""

import json

import orjson
import pytest
from django.db import DataError, connection, transaction
from rest_framework.renderers import JSONRenderer

from storefront.api import product_json, rows
from storefront.api.base import StoreRenderer
from storefront.models import Category, Product, ProductImage, Variant
from tests.storefront.factories import (
    CategoryFactory,
    ProductFactory,
    ProductImageFactory,
    VariantFactory,
)

pytestmark = pytest.mark.django_db

ODD = 'q"b\\s \t\n\r\x01\x1f\x7f ñ中 🍵 \u2028\u2029 </script>'


def pythons(store, ids) -> bytes:
    rendered = orjson.dumps(rows.render_products(store, rows.product_rows(ids)))
    return rendered.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")


def odd_catalog(store) -> list[int]:
    top = CategoryFactory(store=store, name={"es": ODD}, google_shopping_category=ODD)
    children = [CategoryFactory(store=store, parent=top) for _ in range(3)]
    plain = ProductFactory(store=store)
    odd = ProductFactory(
        store=store,
        name={"es": ODD, "pt": "", "en": "not a store language"},
        description={"es": None},
        handle="not an object",
        attributes=[{"es": "Talle"}, "not an object", {"pt": None}],
        video_url=ODD,
        seo_title=ODD,
        brand=None,
        tags=ODD,
        published=False,
    )
    odd.categories.set([top, children[2], children[0]])
    plain.categories.set([children[1]])
    ProductImageFactory(product=odd, src=ODD, alt=[ODD, ""])
    ProductImageFactory(product=odd, position=1)
    VariantFactory(
        product=odd,
        position=2,
        price=None,
        compare_at_price="0.10",
        promotional_price="12345678.99",
        stock=None,
        weight="0.125",
        width="1",
        sku=ODD,
        values=[{"es": ODD, "pt": "Vermelho"}, {}, "text"],
        barcode="",
        mpn=ODD,
        cost="0",
    )
    VariantFactory(product=odd, position=1, stock=0, image=None)
    return [odd.pk, plain.pk, 10**12]  # the last one is gone: left out


def test_the_databases_page_is_pythons_bytes(api, store):
    ids = odd_catalog(store)
    written = product_json.page_body(store, ids)
    assert written is not None
    assert written.body.replace("\u2028".encode(), b"\\u2028").replace(
        "\u2029".encode(), b"\\u2029"
    ) == pythons(store, ids)
    assert product_json.page_body(store, []).body == b"[]"
    page = api.get("products", {"per_page": 200})
    assert page.content == pythons(store, sorted(ids[:2]))  # created first: plain
    listed = page.json()[1]
    assert listed["name"] == {"es": ODD, "pt": ""}
    assert listed["handle"] == {"es": "", "pt": ""}
    children = store.categories.filter(parent__isnull=False).values_list("pk", flat=True)
    assert listed["categories"][0]["subcategories"] == sorted(children)


def test_an_indented_page_is_drfs():
    body = product_json.Encoded(b'[{"ratio":1.5,"name":"\xe2\x80\xa8"}]')
    indent = "application/json; indent=2"
    assert StoreRenderer().render(body, indent, {}) == JSONRenderer().render(
        json.loads(body.body), indent
    )
    assert StoreRenderer().render(body, "application/json", {}) == (
        b'[{"ratio":1.5,"name":"\\u2028"}]'
    )
    separators = product_json.Encoded('["\u2028 \u2013 \u2029", "\u2026"]'.encode())
    assert StoreRenderer().render(separators, "application/json", {}) == (
        b'["\\u2028 \xe2\x80\x93 \\u2029", "\xe2\x80\xa6"]'
    )
    dashes = product_json.Encoded('["\u2013"]'.encode())
    assert StoreRenderer().render(dashes, "application/json", {}) is dashes.body


@pytest.mark.parametrize(
    ("model", "stored"),
    [
        (Product, {"name": {"es": 5}}),
        (Product, {"name": {"es": {"nested": "object"}}}),
        (Product, {"attributes": {"es": "an object, not a list"}}),
        (Variant, {"values": [{"pt": True}]}),
        (Variant, {"values": "not a list"}),
        (ProductImage, {"alt": ["text", 1]}),
        (Category, {"description": {"es": ["a list"]}}),
    ],
)
def test_values_the_database_does_not_write_are_rendered_by_python(api, store, model, stored):
    product = ProductFactory(store=store)
    VariantFactory(product=product)
    ProductImageFactory(product=product)
    product.categories.set([CategoryFactory(store=store)])
    model.objects.update(**stored)
    assert product_json.page_body(store, [product.pk]) is None
    page = api.get("products")
    assert page.status_code == 200
    assert page.content == pythons(store, [product.pk])


@pytest.mark.parametrize(
    ("model", "stored"),
    [
        (Product, {"name": {"es": "cut \x00 here"}}),
        (Variant, {"values": [{"es": "\x00"}]}),
        (ProductImage, {"alt": ["\x00"]}),
    ],
)
def test_a_nul_character_is_never_cut(api, store, model, stored):
    """SQLite's string functions would end the string at it; PostgreSQL's jsonb refuses it."""
    product = ProductFactory(store=store)
    VariantFactory(product=product)
    ProductImageFactory(product=product)
    if connection.vendor == "postgresql":
        with pytest.raises(DataError), transaction.atomic():
            model.objects.update(**stored)
        return
    model.objects.update(**stored)
    assert product_json.page_body(store, [product.pk]) is None
    assert api.get("products").content == pythons(store, [product.pk])


def test_a_lone_surrogate_is_left_to_python(store):
    """SQLite's JSON functions write it as bytes that are not UTF-8; jsonb refuses it."""
    product = ProductFactory(store=store)
    stored = {"name": {"es": "lone \ud800 surrogate"}}
    if connection.vendor == "postgresql":
        with pytest.raises(DataError), transaction.atomic():
            Product.objects.filter(pk=product.pk).update(**stored)
        return
    Product.objects.filter(pk=product.pk).update(**stored)
    assert product_json.page_body(store, [product.pk]) is None


@pytest.mark.django_db(transaction=True)
def test_a_page_is_read_again_on_a_new_connection(api, store):
    """PostgreSQL runs the page's statements and the token lookup prepared: a closed
    connection takes them with it, and the next one prepares them again."""
    ids = odd_catalog(store)
    first = api.get("products")
    assert first.content == pythons(store, sorted(ids[:2]))
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_prepared_statements")
            # the token lookup, the kept texts' read, the page's four
            assert cursor.fetchone()[0] == 6
    connection.close()
    again = api.get("products")
    assert again.content == first.content


@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 7])
def test_lists_of_any_length_are_pythons_bytes(store, length):
    """PostgreSQL writes short lists item by item, longer ones by a subquery."""
    product = ProductFactory(
        store=store,
        attributes=[{"es": f"Atributo {n}", "pt": ODD} for n in range(length)],
    )
    VariantFactory(product=product, values=[{"es": ODD, "pt": str(n)} for n in range(length)])
    ProductImageFactory(product=product, alt=[f"{ODD} {n}" for n in range(length)])
    written = product_json.page_body(store, [product.pk])
    assert written is not None
    assert written.body.replace("\u2028".encode(), b"\\u2028").replace(
        "\u2029".encode(), b"\\u2029"
    ) == pythons(store, [product.pk])
