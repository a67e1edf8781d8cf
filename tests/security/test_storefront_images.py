"""An image owns only the files its own store uploaded: another store's app can neither
delete them nor adopt them (a `src` naming another store's upload is refused with 422,
Tiendanube's field error). Other URLs, this server's included, are kept and never deleted."""

import base64

import pytest

from tests.security.storefront_support import tenant
from tests.storefront.factories import ProductFactory

pytestmark = pytest.mark.django_db

GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")
ATTACHMENT = {"attachment": base64.b64encode(GIF).decode(), "filename": "logo.gif"}


@pytest.fixture
def stores(client, django_capture_on_commit_callbacks):
    """Store A with one uploaded image, and store B's app with a product of its own."""
    a, b = tenant(), tenant()
    a_product = ProductFactory(store=a.installation.store)
    b_product = ProductFactory(store=b.installation.store)
    with django_capture_on_commit_callbacks(execute=True):
        uploaded = a.api(client).post(f"products/{a_product.pk}/images", ATTACHMENT)
    assert uploaded.status_code == 201, uploaded.content
    return a, b, a_product, b_product, uploaded.json()["src"]


def served(client, settings, src) -> int:
    return client.get(src.removeprefix(settings.EXTERNAL_URL)).status_code


def test_another_stores_upload_is_refused_as_src(client, settings, stores):
    _, b, _, b_product, src = stores
    api = b.api(client)
    created = api.post(f"products/{b_product.pk}/images", {"src": src})
    assert created.status_code == 422, created.content
    assert created.json() == {"src": ["must be an image uploaded to this store or an external url"]}
    product = api.post("products", {"name": "x", "images": [{"src": src}]})
    assert product.status_code == 422
    assert not b_product.images.exists()
    assert served(client, settings, src) == 200


@pytest.mark.parametrize(
    "disguise",
    [
        "{prefix}{b}/products/1/../../../{a_path}",
        "{prefix}{b}/../{a_path}",
        "{prefix}./{a_path}",
    ],
)
def test_path_tricks_towards_another_store_are_refused(client, settings, stores, disguise):
    _, b, _, b_product, src = stores
    prefix = f"{settings.EXTERNAL_URL}/media/storefront/"
    a_path = src.removeprefix(prefix)
    url = disguise.format(prefix=prefix, b=b.store_id, a_path=a_path)
    response = b.api(client).post(f"products/{b_product.pk}/images", {"src": url})
    assert response.status_code == 422, response.content
    assert served(client, settings, src) == 200


def test_deleting_or_replacing_an_image_never_removes_another_stores_file(
    client, settings, stores, django_capture_on_commit_callbacks
):
    _, b, _, b_product, src = stores
    # An image that names A's file in another spelling (kept as a plain URL) or that
    # predates the check (written straight to the table) is not an owner of that file.
    other_spelling = src.replace("/media/", "/media//")
    legacy = b_product.images.create(src=src, position=1)
    api = b.api(client)
    plain = api.post(f"products/{b_product.pk}/images", {"src": other_spelling})
    assert plain.status_code == 201, plain.content
    with django_capture_on_commit_callbacks(execute=True):
        assert (
            api.put(
                f"products/{b_product.pk}/images/{plain.json()['id']}",
                {"src": "https://x.test/a.png"},
            ).status_code
            == 200
        )
        assert api.delete(f"products/{b_product.pk}/images/{legacy.pk}").status_code == 200
        b_product.images.create(src=src, position=1)
        assert api.delete(f"products/{b_product.pk}").status_code == 200
    assert served(client, settings, src) == 200


def test_a_file_shared_by_two_products_of_one_store_stays_until_the_last(
    client, settings, stores, django_capture_on_commit_callbacks
):
    a, _, a_product, _, src = stores
    api = a.api(client)
    other = ProductFactory(store=a.installation.store)
    assert api.post(f"products/{other.pk}/images", {"src": src}).status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"products/{a_product.pk}").status_code == 200
    assert served(client, settings, src) == 200
    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"products/{other.pk}").status_code == 200
    assert served(client, settings, src) == 404
