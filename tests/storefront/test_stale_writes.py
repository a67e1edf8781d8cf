"""A write racing a DELETE of the same thing: the view has read the row, then the other
request's deletion commits before the write takes its lock.

Seen on the running server (two requests at once, SQLite and PostgreSQL alike): a `PUT`
of a product or category was a 500 (`DoesNotExist`), a `PUT` of a variant, image, script
or webhook answered 200 and wrote the deleted row back (both requests said 200 and the
row was there afterwards), and two DELETEs both answered 200 and announced
`product/deleted` twice. Each write now finds the row again under its lock: gone is 404,
Tiendanube's answer for a deleted id, and nothing comes back.

The services are given the instance as the view read it (the state a racing request is
in); one test drives the API with the other request committing first.
"""

import pytest
from django.db import transaction

from storefront.errors import Missing
from storefront.models import Category, Delivery, Product, ProductImage, Script, Variant, Webhook
from storefront.services import categories, images, products, scripts, variants, webhooks
from tests.storefront.factories import (
    CategoryFactory,
    ProductFactory,
    ProductImageFactory,
    ScriptFactory,
    VariantFactory,
)
from tests.storefront_webhooks.factories import WebhookFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def shirt(store):
    product = ProductFactory(store=store)
    VariantFactory(product=product, values=[], position=1)
    VariantFactory(product=product, values=[], position=2)
    ProductImageFactory(product=product, position=1)
    ProductImageFactory(product=product, position=2)
    return product


def read(model, pk):
    """The row as a view reads it before the other request's change commits."""
    return model.objects.select_related("store" if model in (Product, Category) else None).get(
        pk=pk
    )


def test_a_variant_deleted_meanwhile_is_not_written_back(shirt):
    first, second = shirt.variants.order_by("id")
    stale = read(Variant, first.pk)
    variants.delete_variant(read(Variant, first.pk))

    with pytest.raises(Missing, match="Variant with such id does not exist"):
        variants.update_variant(stale, {"price": "5.00"})
    with pytest.raises(Missing, match="Variant with such id does not exist"):
        variants.delete_variant(stale)
    assert list(shirt.variants.values_list("pk", flat=True)) == [second.pk]


def test_an_image_deleted_meanwhile_is_not_written_back(shirt):
    first, second = shirt.images.order_by("position")
    stale = read(ProductImage, first.pk)
    images.delete_image(read(ProductImage, first.pk))

    with pytest.raises(Missing, match="Image with such id does not exist"):
        images.update_image(stale, {"alt": ["back?"]})
    with pytest.raises(Missing, match="Image with such id does not exist"):
        images.delete_image(stale)
    # The other image moved up once, not twice.
    assert list(shirt.images.values_list("pk", "position")) == [(second.pk, 1)]


def test_images_deleted_one_after_the_other_from_stale_reads_keep_positions_dense(shirt):
    """Each DELETE read its image's position before the other's deletion shifted it."""
    ProductImageFactory(product=shirt, position=3)
    ids = shirt.images.order_by("position").values_list("pk", flat=True)
    first, second, third = (read(ProductImage, pk) for pk in ids)
    images.delete_image(first)
    images.delete_image(second)
    assert list(shirt.images.values_list("pk", "position")) == [(third.pk, 1)]


def test_writes_below_a_product_deleted_meanwhile_are_404(shirt):
    variant, image = shirt.variants.first(), shirt.images.first()
    stale_variant, stale_image = read(Variant, variant.pk), read(ProductImage, image.pk)
    stale_product = read(Product, shirt.pk)
    products.delete_product(read(Product, shirt.pk))

    missing = pytest.raises(Missing, match="Product with such id does not exist")
    for write in (
        lambda: products.update_product(stale_product, {"published": False}),
        lambda: products.delete_product(stale_product),
        lambda: variants.create_variant(stale_product, {"price": "1.00"}),
        lambda: variants.update_variant(stale_variant, {"price": "5.00"}),
        lambda: variants.delete_variant(stale_variant),
        lambda: variants.replace_variants(stale_product, [{"price": "1.00"}]),
        lambda: variants.update_variants(stale_product, [{"id": variant.pk, "price": "1"}]),
        lambda: variants.change_stock(stale_product, "replace", 3),
        lambda: images.create_image(stale_product, {"src": "https://cdn.example.com/n.jpg"}),
        lambda: images.update_image(stale_image, {"alt": ["back?"]}),
        lambda: images.delete_image(stale_image),
    ):
        with missing, transaction.atomic():
            write()
    assert not Product.objects.exists()
    assert not Variant.objects.exists() and not ProductImage.objects.exists()


def test_a_product_and_a_category_deleted_twice_are_announced_once(installation):
    store = installation.store
    for event in ("product/deleted", "category/deleted"):
        WebhookFactory(installation=installation, event=event)
    product, category = ProductFactory(store=store), CategoryFactory(store=store)
    stale_product, stale_category = read(Product, product.pk), read(Category, category.pk)
    products.delete_product(read(Product, product.pk))
    categories.delete_category(read(Category, category.pk))

    with pytest.raises(Missing):
        products.delete_product(stale_product)
    with pytest.raises(Missing):
        categories.delete_category(stale_category)
    assert sorted(Delivery.objects.values_list("event", flat=True)) == [
        "category/deleted",
        "product/deleted",
    ]


def test_a_category_deleted_meanwhile_is_404(store):
    category = CategoryFactory(store=store)
    stale = read(Category, category.pk)
    categories.delete_category(read(Category, category.pk))

    with pytest.raises(Missing, match="Category with such id does not exist"):
        categories.update_category(stale, {"name": "back?"})
    with pytest.raises(Missing, match="Category with such id does not exist"):
        categories.delete_category(stale)
    assert not Category.objects.exists()


def test_a_script_deleted_meanwhile_is_not_written_back(installation):
    script = ScriptFactory(store=installation.store, app=installation.app)
    stale = Script.objects.get(pk=script.pk)
    scripts.delete_script(Script.objects.get(pk=script.pk))

    with pytest.raises(Missing, match="Script with such id does not exist"):
        scripts.update_script(stale, {"event": "onfirstinteraction"})
    with pytest.raises(Missing, match="Script with such id does not exist"):
        scripts.delete_script(stale)
    assert not Script.objects.exists()


def test_a_webhook_deleted_meanwhile_is_not_written_back(installation, settings):
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True
    webhook = WebhookFactory(installation=installation, event="product/created")
    stale = Webhook.objects.select_related("installation").get(pk=webhook.pk)
    webhooks.delete_webhook(Webhook.objects.get(pk=webhook.pk))

    with pytest.raises(Missing, match="Webhook with such id does not exist"):
        webhooks.update_webhook(stale, event="product/updated")
    with pytest.raises(Missing, match="Webhook with such id does not exist"):
        webhooks.delete_webhook(stale)
    assert not Webhook.objects.exists()


def test_api_put_racing_a_delete_is_tiendanube_s_404(api, shirt, monkeypatch):
    """Through the API: the DELETE commits between the PUT's read and its write."""
    real = products.update_product

    def other_request_first(product, data):
        products.delete_product(Product.objects.get(pk=product.pk))
        return real(product, data)

    monkeypatch.setattr(products, "update_product", other_request_first)
    response = api.put(f"products/{shirt.pk}", {"published": False})
    assert response.status_code == 404
    assert response.json() == {
        "code": 404,
        "message": "Not Found",
        "description": "Product with such id does not exist",
    }
    assert not Product.objects.exists()
