"""Product pages serve kept JSON texts: a page never serves a product's text older than
its last write, whoever wrote it (the API, the ORM, raw SQL), on either database."""

import json

import orjson
import pytest
from django.db import connection

from storefront.api import product_json, product_texts, rows
from storefront.models import Category, Product, ProductImage, ProductText, Store, Variant
from tests.storefront.factories import (
    CategoryFactory,
    ProductFactory,
    ProductImageFactory,
    VariantFactory,
)


@pytest.fixture
def catalog(store):
    parent, other = CategoryFactory(store=store), CategoryFactory(store=store)
    products = []
    for n in range(3):
        product = ProductFactory(store=store, attributes=[{"es": "Talle"}])
        VariantFactory.create_batch(2, product=product, values=[{"es": f"T{n}"}])
        ProductImageFactory(product=product)
        product.categories.set([parent])
        products.append(product)
    return {"products": products, "parent": parent, "other": other}


def assert_page_is_current(api):
    """The page equals its products rendered in Python from their rows (as a product
    read alone is, never kept)."""
    listed = api.get("products?per_page=50").json()
    assert listed
    store = Store.objects.get(pk=api.store_id)
    rendered = rows.render_products(store, rows.product_rows([p["id"] for p in listed]))
    assert listed == json.loads(orjson.dumps(rendered))
    return listed


def _kept(product) -> bool:
    return ProductText.objects.filter(product=product).exists()


def test_a_page_keeps_its_texts_and_serves_them(api, catalog):
    first = assert_page_is_current(api)
    assert all(_kept(product) for product in catalog["products"])
    # A kept text at the product's revision is what the page serves.
    product = catalog["products"][0]
    revision = Product.objects.get(pk=product.pk).revision
    ProductText.objects.filter(product=product).update(body=b'{"id":0}', revision=revision)
    assert api.get("products?per_page=50").json()[0] == {"id": 0}
    # One of an older revision is not served: the product's current text is written again.
    ProductText.objects.filter(product=product).update(revision=revision - 1)
    assert api.get("products?per_page=50").json() == first


def write_through_api(api, catalog):
    product, second, third = catalog["products"]
    variant = product.variants.first()
    yield api.put(f"products/{product.pk}", {"name": {"es": "Renamed"}})
    yield api.put(f"products/{product.pk}/variants/{variant.pk}", {"price": "77.10"})
    yield api.post(f"products/{second.pk}/variants", {"price": "5.00", "values": [{"es": "X"}]})
    yield api.delete(f"products/{second.pk}/variants/{second.variants.last().pk}")
    body = [{"id": third.pk, "variants": [{"id": third.variants.first().pk, "price": 3}]}]
    yield api.request("PATCH", "products/stock-price", body)
    yield api.delete(f"products/{third.pk}/images/{third.images.first().pk}")
    yield api.put(f"categories/{catalog['parent'].pk}", {"name": {"es": "Renamed"}})
    # A subcategory added, moved and deleted: the parent's text lists its children.
    child = api.post("categories", {"name": {"es": "Child"}, "parent": catalog["parent"].pk})
    yield child
    yield api.put(f"categories/{child.json()['id']}", {"parent": catalog["other"].pk})
    yield api.delete(f"categories/{child.json()['id']}")
    yield api.put(f"products/{product.pk}", {"categories": [catalog["other"].pk]})
    yield api.delete(f"products/{second.pk}")


def test_every_api_write_shows_on_the_next_page(api, catalog):
    assert_page_is_current(api)
    for answer in write_through_api(api, catalog):
        assert answer.status_code in (200, 201), answer.content
        assert_page_is_current(api)


def write_around_the_api(api, catalog, store):
    product, second, third = catalog["products"]
    yield lambda: Variant.objects.filter(product=product).update(stock=123)
    yield lambda: ProductImage.objects.create(product=second, src="https://img.example/2.png")
    yield lambda: ProductImage.objects.filter(product=third).update(position=9)
    yield lambda: Category.objects.filter(pk=catalog["parent"].pk).update(
        google_shopping_category="G"
    )
    yield lambda: Category.objects.create(store=store, parent=catalog["parent"], name={"es": "C"})
    yield lambda: Category.objects.filter(parent=catalog["parent"]).delete()
    yield lambda: product.categories.add(catalog["other"])
    yield lambda: product.categories.remove(catalog["parent"])
    yield lambda: Variant.objects.filter(product=third).delete()

    def raw_sql():
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {Product._meta.db_table} SET brand = %s WHERE id = %s",
                ["Raw", second.pk],
            )

    yield raw_sql

    def stale_instance_save():
        # An instance read before later writes saves its stale revision: the trigger
        # still moves the revision forward, never back to a kept text's.
        stale = Product.objects.get(pk=third.pk)
        Product.objects.filter(pk=third.pk).update(brand="Newer")
        assert_page_is_current(api)
        stale.brand = "Stale save"
        stale.save()

    yield stale_instance_save


def test_writes_around_the_api_show_on_the_next_page(api, catalog, store):
    assert_page_is_current(api)
    for write in write_around_the_api(api, catalog, store):
        write()
        assert_page_is_current(api)


def test_the_store_languages_and_external_url_are_part_of_a_text(api, catalog, store, settings):
    before = assert_page_is_current(api)
    store.languages = ["es", "pt", "en"]
    store.save()
    after = assert_page_is_current(api)
    assert before[0]["name"] != after[0]["name"]  # an "en" key now
    settings.EXTERNAL_URL = "https://elsewhere.example"
    moved = assert_page_is_current(api)
    assert moved[0]["canonical_url"].startswith("https://elsewhere.example/")


def test_a_text_written_before_a_concurrent_write_is_never_served(api, catalog, store):
    """The page reads a product, a write commits, then the page keeps its text: the text
    carries the revision it was read at, which the write raised past."""
    product = catalog["products"][0]
    sql = product_json._statements(connection.vendor, tuple(store.languages), "http://x")
    written = product_json._written(sql, [product.pk])
    Variant.objects.filter(product=product).update(price="1.00")
    product_texts.keep(sql.form, written)
    assert product_texts.read([product.pk], sql.form) == {}


def test_a_kept_text_is_not_replaced_by_an_older_one(catalog, store):
    product = catalog["products"][0]
    sql = product_json._statements(connection.vendor, tuple(store.languages), "http://x")
    older = product_json._written(sql, [product.pk])
    Product.objects.filter(pk=product.pk).update(brand="Newer")
    newer = product_json._written(sql, [product.pk])
    product_texts.keep(sql.form, newer)
    product_texts.keep(sql.form, older)
    assert product_texts.read([product.pk], sql.form) == {product.pk: newer[product.pk][1]}


@pytest.mark.django_db(transaction=True)
def test_keeping_the_text_of_a_product_deleted_meanwhile_is_skipped(store):
    product = ProductFactory(store=store)
    sql = product_json._statements(connection.vendor, tuple(store.languages), "http://x")
    written = product_json._written(sql, [product.pk])
    Product.objects.filter(pk=product.pk).delete()
    product_texts.keep(sql.form, written)  # the product is gone: nothing kept, no error
    assert not ProductText.objects.exists()


def test_a_warm_page_reads_kept_texts_in_one_query(api, catalog, django_assert_max_num_queries):
    api.get("products?per_page=50")
    # token+store, count, page ids, kept texts
    with django_assert_max_num_queries(4):
        assert len(api.get("products?per_page=50").json()) == 3
