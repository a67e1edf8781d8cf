"""Product variants and images (tiendanube.md sections 8 and 9)."""

import base64

import botocore.client
import pytest
from django.db import connection

from storefront.models import Variant
from tests.storefront.factories import ProductFactory, ProductImageFactory, VariantFactory

pytestmark = pytest.mark.django_db

SIZES = [{"es": "Talle", "pt": "Tamanho"}]


@pytest.fixture
def shirt(store):
    product = ProductFactory(store=store, attributes=SIZES)
    VariantFactory(product=product, values=[{"es": "S", "pt": "P"}], position=1, sku="SH-S")
    return product


def test_list_and_get_variants(api, shirt):
    listed = api.get(f"products/{shirt.pk}/variants")
    assert listed.status_code == 200
    assert listed["X-Total-Count"] == "1"
    variant = listed.json()[0]
    assert variant["values"] == [{"es": "S", "pt": "P"}]
    one = api.get(f"products/{shirt.pk}/variants/{variant['id']}")
    assert one.json() == variant
    assert api.get(f"products/{shirt.pk}/variants/999999").json()["description"] == (
        "Variant with such id does not exist"
    )


def test_create_variant_validates_values_and_enums(api, shirt):
    url = f"products/{shirt.pk}/variants"
    created = api.post(url, {"values": ["M"], "price": "12.5", "stock": "", "weight": 1.25})
    assert created.status_code == 201
    body = created.json()
    assert body["values"] == [{"es": "M", "pt": "M"}]
    assert body["price"] == "12.50" and body["weight"] == "1.250"
    assert body["stock"] is None and body["stock_management"] is False
    assert body["position"] == 2
    assert api.post(url, {"values": ["M"]}).json()["description"] == "Variants cannot be repeated"
    assert api.post(url, {"values": ["L", "XL"]}).status_code == 422
    assert api.post(url, {"values": ["L"], "age_group": "baby"}).json() == {
        "age_group": ["The selected age group is invalid."]
    }
    assert api.post(url, {"values": ["L"], "gender": "x"}).json() == {
        "gender": ["The selected gender is invalid."]
    }
    assert api.post(url, {"values": ["L"], "price": "-1"}).status_code == 422


def test_update_variant_and_image_link(api, shirt):
    variant = shirt.variants.get()
    image = ProductImageFactory(product=shirt)
    foreign_image = ProductImageFactory()
    url = f"products/{shirt.pk}/variants/{variant.pk}"
    body = api.put(url, {"stock": 3, "promotional_price": "9.99", "image_id": image.pk}).json()
    assert body["stock"] == 3 and body["promotional_price"] == "9.99"
    assert body["image_id"] == image.pk
    assert body["values"] == [{"es": "S", "pt": "P"}]
    assert api.put(url, {"image_id": foreign_image.pk}).status_code == 422
    assert api.put(url, {"stock": None}).json()["stock_management"] is False


def test_last_variant_cannot_be_deleted(api, shirt):
    first = shirt.variants.get()
    second = api.post(f"products/{shirt.pk}/variants", {"values": ["M"]}).json()
    assert api.delete(f"products/{shirt.pk}/variants/{second['id']}").json() == {}
    refused = api.delete(f"products/{shirt.pk}/variants/{first.pk}")
    assert refused.status_code == 422
    assert refused.json()["code"] == 422


def test_put_collection_updates_matches_creates_new_deletes_missing(api, shirt):
    small = shirt.variants.get()
    VariantFactory(product=shirt, values=[{"es": "XL", "pt": "GG"}], position=2)
    body = api.put(
        f"products/{shirt.pk}/variants",
        [{"values": [{"es": "S", "pt": "P"}], "price": "1.00"}, {"values": ["M"], "price": "2.00"}],
    )
    assert body.status_code == 200, body.content
    result = body.json()
    assert [variant["price"] for variant in result] == ["1.00", "2.00"]
    assert result[0]["id"] == small.pk
    assert Variant.objects.filter(product=shirt).count() == 2
    empty = api.put(f"products/{shirt.pk}/variants", [])
    assert empty.status_code == 400
    assert empty.json() == {
        "code": 400,
        "message": "Bad Request",
        "description": "There must be at least one variant",
    }


TOO_MANY_VARIANTS = {
    "code": 422,
    "message": "Unprocessable Entity",
    "description": "Product is not allowed to have more than 1000 variants",
}


def test_a_collection_put_keeps_to_a_product_s_variant_limit(api, shirt):
    """PUT of the whole collection stored 1,500 distinct variants (the limit is 1,000)."""
    body = [{"values": [f"V{n}"], "price": "1.00"} for n in range(1001)]
    response = api.put(f"products/{shirt.pk}/variants", body)
    assert response.status_code == 422
    assert response.json() == TOO_MANY_VARIANTS
    assert list(shirt.variants.values_list("sku", flat=True)) == ["SH-S"]


def test_huge_variant_lists_are_refused_before_each_item_is_validated(api, shirt):
    """Each item was validated before the limit refused the list (300,000 variants: a
    minute of a web thread), and PATCH ids were counted one by one (30,000: a minute):
    the limit comes first."""
    import time

    started = time.monotonic()
    items = [{"id": n, "price": "1.00"} for n in range(1, 30_001)]
    patched = api.request("PATCH", f"products/{shirt.pk}/variants", items)
    created = api.post("products", {"name": "x", "variants": [{"price": "1"}] * 30_000})
    put = api.put(f"products/{shirt.pk}/variants", [{"values": ["S"]}] * 30_000)
    images = api.post(
        "products", {"name": "x", "images": [{"src": "https://e.example/a.png"}] * 30_000}
    )
    assert [r.status_code for r in (patched, created, put, images)] == [422] * 4
    assert patched.json() == created.json() == put.json() == TOO_MANY_VARIANTS
    assert images.json()["description"] == "Product is not allowed to have more than 250 images"
    assert time.monotonic() - started < 10
    assert shirt.variants.count() == 1


def test_variant_of_another_stores_product_is_404(api):
    foreign = VariantFactory()
    response = api.get(f"products/{foreign.product_id}/variants/{foreign.pk}")
    assert response.status_code == 404
    assert response.json()["description"] == "Product with such id does not exist"


def test_images_create_list_reorder_delete(api, shirt):
    url = f"products/{shirt.pk}/images"
    first = api.post(url, {"src": "https://cdn.example.com/1.jpg"}).json()
    second = api.post(url, {"src": "https://cdn.example.com/2.jpg"}).json()
    assert (first["position"], second["position"]) == (1, 2)
    assert first["product_id"] == shirt.pk and first["alt"] == []
    assert api.post(url, {}).json() == {"src": ["can't be blank"]}
    moved = api.put(f"{url}/{second['id']}", {"position": 1}).json()
    assert moved["position"] == 1
    assert [image["id"] for image in api.get(url).json()] == [second["id"], first["id"]]
    assert [image["id"] for image in api.get(url, params={"position": 2}).json()] == [first["id"]]
    src = {"src": "https://cdn.example.com/1.jpg"}
    assert [image["id"] for image in api.get(url, params=src).json()] == [first["id"]]
    assert api.delete(f"{url}/{second['id']}").json() == {}
    assert api.get(f"{url}/{first['id']}").json()["position"] == 1
    assert api.get(f"{url}/{second['id']}").status_code == 404


def test_patch_updates_several_existing_variants(api, shirt):
    small = shirt.variants.get()
    medium = VariantFactory(product=shirt, values=[{"es": "M", "pt": "M"}], position=2)
    url = f"products/{shirt.pk}/variants"
    body = api.request(
        "PATCH", url, [{"id": small.pk, "price": "3.00"}, {"id": medium.pk, "stock": 7}]
    ).json()
    assert [(v["id"], v["price"], v["stock"]) for v in body] == [
        (small.pk, "3.00", small.stock),
        (medium.pk, "100.00", 7),
    ]
    duplicated = api.request("PATCH", url, [{"id": small.pk}, {"id": small.pk}])
    assert duplicated.status_code == 422
    assert api.request("PATCH", url, [{"id": 424242, "stock": 1}]).status_code == 422
    assert Variant.objects.filter(product=shirt).count() == 2


def test_stock_replace_and_variation_never_below_zero(api, shirt):
    small = shirt.variants.get()  # stock 10
    infinite = VariantFactory(product=shirt, values=[{"es": "M", "pt": "M"}], stock=None)
    url = f"products/{shirt.pk}/variants/stock"
    body = api.post(url, {"action": "variation", "value": -4, "id": small.pk}).json()
    assert [v["stock"] for v in body] == [6]
    body = api.post(url, {"action": "variation", "value": -100}).json()
    assert [v["stock"] for v in body] == [0, None]
    body = api.post(url, {"action": "replace", "value": 5}).json()
    assert [v["stock"] for v in body] == [5, 5]
    assert (
        api.post(url, {"action": "replace", "value": None, "id": infinite.pk}).json()[0][
            "stock_management"
        ]
        is False
    )
    assert api.post(url, {"action": "add", "value": 1}).json() == {
        "action": ["Valid actions are 'replace', 'variation'."]
    }


# A 1x1 transparent GIF, as in Tiendanube's Postman collection (which sends a larger one).
GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


@pytest.mark.both_storages
def test_image_uploaded_as_base64_attachment_is_kept_and_served(api, shirt, client, settings):
    url = f"products/{shirt.pk}/images"
    body = {"filename": "mewtwo.gif", "position": 1, "attachment": base64.b64encode(GIF).decode()}
    created = api.post(url, body)
    assert created.status_code == 201, created.content
    image = created.json()
    assert set(image) == {"id", "product_id", "src", "position", "alt", "created_at", "updated_at"}
    assert image["src"].startswith(f"{settings.EXTERNAL_URL}/media/storefront/")
    assert image["src"].endswith("-mewtwo.gif")
    served = client.get(image["src"].removeprefix(settings.EXTERNAL_URL))
    assert served.status_code == 200
    assert served["Content-Type"] == "image/gif"
    assert b"".join(served.streaming_content) == GIF
    assert api.get(f"{url}/{image['id']}").json() == image


@pytest.mark.both_storages
def test_uploaded_files_go_with_their_images(
    api, shirt, client, django_capture_on_commit_callbacks
):
    url = f"products/{shirt.pk}/images"
    attachment = {"attachment": base64.b64encode(GIF).decode()}
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(url, attachment).json()["src"]
        second = api.post(url, attachment).json()
        api.put(f"{url}/{second['id']}", attachment)
        third = api.post(url, attachment).json()["src"]
        api.delete(f"products/{shirt.pk}/images/{api.get(url).json()[0]['id']}")
    paths = [src.split("://", 1)[1].split("/", 1)[1] for src in (first, second["src"], third)]
    assert [client.get(f"/{path}").status_code for path in paths] == [404, 404, 200]
    with django_capture_on_commit_callbacks(execute=True):
        api.delete(f"products/{shirt.pk}")
    assert client.get(f"/{paths[2]}").status_code == 404


def test_product_created_with_an_attached_image(api, settings):
    png = b"\x89PNG\r\n\x1a\n" + bytes(3 * 1024 * 1024)  # 3 MB: a body over Django's 2.5 MB
    body = {"name": "x", "images": [{"attachment": base64.b64encode(png).decode()}]}
    created = api.post("products", body)
    assert created.status_code == 201
    src = created.json()["images"][0]["src"]
    assert src.startswith(f"{settings.EXTERNAL_URL}/media/storefront/") and src.endswith(".png")


def test_images_created_with_their_product_get_positions_1_to_n(api):
    """As if each were POSTed to /images in turn (a position past the end is the end; an
    earlier one moves the others down). Given positions were stored as sent: [7, 7, -]
    became 7, 7, 3, and later image writes shifted from there (two images at 6)."""

    def src(name):
        return f"https://cdn.example.com/{name}.jpg"

    images = [{"src": src("a"), "position": 7}, {"src": src("b"), "position": 7}]
    images += [{"src": src("c")}, {"src": src("d"), "position": 1}]
    created = api.post("products", {"name": "x", "images": images}).json()
    by_position = sorted((image["position"], image["src"]) for image in created["images"])
    assert by_position == [(1, src("d")), (2, src("a")), (3, src("b")), (4, src("c"))]
    product = created["id"]
    first = next(image["id"] for image in created["images"] if image["position"] == 1)
    assert api.delete(f"products/{product}/images/{first}").status_code == 200
    listed = api.get(f"products/{product}/images").json()
    assert [(image["position"], image["src"]) for image in listed] == [
        (1, src("a")),
        (2, src("b")),
        (3, src("c")),
    ]


@pytest.mark.parametrize(
    ("attachment", "message"),
    [
        ("not base64!", "The attachment must be a base64 encoded image"),
        (base64.b64encode(b"<svg></svg>").decode(), "The image must be a gif, jpg or png"),
        ("A" * (14 * 1024 * 1024), "The image must be smaller than 10 MB"),
    ],
)
def test_attachment_that_is_not_an_accepted_image_is_422(api, shirt, attachment, message):
    response = api.post(f"products/{shirt.pk}/images", {"attachment": attachment})
    assert response.status_code == 422
    assert response.json() == {"attachment": [message]}
    assert not shirt.images.exists()


def test_served_images_are_only_uploaded_ones(client):
    assert client.get("/media/storefront/1/products/1/nothing.gif").status_code == 404
    assert client.get("/media/storefront/../secret_key").status_code == 404
    assert client.get("/media/storefront/%2e%2e/%2e%2e/secret_key").status_code == 404


def test_body_over_the_upload_limit_is_413_not_a_crash(api, shirt, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = api.post(f"products/{shirt.pk}/images", {"attachment": "A" * 2048})
    assert response.status_code == 413
    assert response.json()["code"] == 413


@pytest.fixture
def s3_requests(db, s3_storage, monkeypatch):
    """The S3 requests the storages send to the test's S3 server (a real one), each with
    how many atomic blocks were open at that moment."""
    calls: list[tuple[str, int]] = []
    send = botocore.client.BaseClient._make_api_call

    def recorded(client, operation, params):
        calls.append((operation, len(connection.atomic_blocks)))
        return send(client, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recorded)
    return calls


def test_no_s3_request_is_made_inside_a_transaction(
    api, shirt, s3_requests, django_capture_on_commit_callbacks
):
    """Storing an uploaded image (new product, new image, replaced image) and removing the
    files of failed or deleted images: the bucket is a remote service (rule: no external
    call inside a database transaction)."""
    attachment = {"attachment": base64.b64encode(GIF).decode()}
    url = f"products/{shirt.pk}/images"
    tests_own = len(connection.atomic_blocks)  # the test case's transaction
    with django_capture_on_commit_callbacks(execute=True):
        product = api.post("products", {"name": "x", "images": [attachment]}).json()
        image = api.post(url, attachment).json()
        assert api.put(f"{url}/{image['id']}", attachment).status_code == 200
        api.delete(f"products/{product['id']}")
    operations = {operation for operation, _ in s3_requests}
    assert {"PutObject", "DeleteObject"} <= operations
    assert [(operation, depth) for operation, depth in s3_requests if depth > tests_own] == []


def test_an_upload_whose_image_is_refused_is_not_kept(api, shirt, s3_storage):
    from django.core.files.storage import default_storage

    ProductImageFactory.create_batch(250, product=shirt)
    attachment = {"attachment": base64.b64encode(GIF).decode()}
    refused = api.post(f"products/{shirt.pk}/images", attachment)
    assert refused.status_code == 422
    assert default_storage.listdir(f"storefront/{shirt.store_id}/products")[1] == []
