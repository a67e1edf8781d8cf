"""HEAD on every store API route answers what GET answers (status and every header),
with no body (RFC 9110 section 9.3.2; Tiendanube answers HEAD on its resources).

Routes are read from the store API's URL patterns, so a new route is covered as soon as
it is added; a new path parameter must be given a value in `path_values` below.

Requests go through Django's WSGI handler itself rather than the test client, which
would strip a HEAD body on its own and hide a view that sends one.
"""

import re

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import RequestFactory
from django.urls import URLPattern
from django.utils import timezone

from storefront.api import urls as store_urls
from tests.storefront.conftest import USER_AGENT
from tests.storefront.factories import (
    CategoryFactory,
    InstallationFactory,
    ProductFactory,
    ProductImageFactory,
    ScriptFactory,
    VariantFactory,
    issue_token,
)
from tests.storefront_webhooks.factories import WebhookFactory

pytestmark = pytest.mark.django_db

CATCH_ALL = r"^.*$"
ROUTES = [
    str(pattern.pattern)
    for pattern in store_urls.urlpatterns
    if isinstance(pattern, URLPattern) and str(pattern.pattern) != CATCH_ALL
]
MISSING_ID = 999_999_999


@pytest.fixture(autouse=True)
def steady_bucket(settings):
    # Leaking fast, each request finds the bucket empty: Remaining and Reset are then the
    # same for the GET and the HEAD that follows it. `size` is changed by the 429 case.
    settings.STOREFRONT_RATE_LIMIT_LEAK = 1e9


@pytest.fixture
def world(installation):
    """Two of everything in the caller's store, so that lists have pages and Links."""
    store = installation.store
    products = ProductFactory.create_batch(2, store=store)
    product = products[0]
    return {
        "installation": installation,
        "token": issue_token(installation),
        "values": {
            "store_id": store.pk,
            "product_id": product.pk,
            "variant_id": VariantFactory.create_batch(2, product=product)[0].pk,
            "sku": product.variants.first().sku,
            "image_id": ProductImageFactory.create_batch(2, product=product)[0].pk,
            "category_id": CategoryFactory.create_batch(2, store=store)[0].pk,
            "script_id": ScriptFactory.create_batch(2, store=store, app=installation.app)[0].pk,
            "webhook_id": WebhookFactory.create_batch(2, installation=installation)[0].pk,
        },
    }


def path_for(route: str, values: dict) -> str:
    def value(match):
        name = match.group(1)
        assert name in values, f"give the path parameter {name!r} of {route!r} a value"
        return str(values[name])

    return re.sub(r"<(?:\w+:)?(\w+)>", value, route)


def wsgi(method: str, path: str, headers: dict) -> tuple[int, dict, bytes]:
    """One request through the real WSGI handler: status, headers and the bytes sent."""
    request = RequestFactory().generic(method, path, headers=headers)
    started = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split()[0])
        started["headers"] = dict(response_headers)

    # As the test client does: keep the test's connection (and transaction) open.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        response = WSGIHandler()(request.environ, start_response)
        body = b"".join(response)
        response.close()
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)
    return started["status"], started["headers"], body


def compare(store_id: int, route: str, values: dict, headers: dict, query: str = ""):
    """GET then HEAD of one URL: the same status and headers, no body; (status, headers)."""
    path = f"/v1/{store_id}/{path_for(route, values)}{query}"
    headers = {"User-Agent": USER_AGENT, "X-Request-Id": "head-check", **headers}
    get_status, get_headers, get_body = wsgi("GET", path, headers)
    head_status, head_headers, head_body = wsgi("HEAD", path, headers)
    assert head_body == b"", path
    assert get_headers["Content-Length"] == str(len(get_body)), path
    if get_status == 405:
        # A route without GET refuses both, each naming its own method in the message
        # ('Method "HEAD" not allowed.'), so the lengths differ by one.
        head_headers.pop("Content-Length")
        get_headers.pop("Content-Length")
    assert (head_status, head_headers) == (get_status, get_headers), path
    return head_status, head_headers


def test_every_route_is_enumerated():
    assert len(ROUTES) >= 16
    assert "products/<int:product_id>/variants/<int:variant_id>" in ROUTES


@pytest.mark.parametrize("route", ROUTES)
def test_head_matches_get_on_a_found_resource(world, route):
    bearer = {"Authentication": f"bearer {world['token']}"}
    store_id = world["values"]["store_id"]
    status, headers = compare(store_id, route, world["values"], bearer, "?per_page=1")
    assert status in (200, 405)
    assert headers["Content-Type"] == "application/json"
    assert {"X-Main-Language", "X-Rate-Limit-Limit", "X-Rate-Limit-Remaining"} <= set(headers)


def test_head_of_a_list_keeps_total_and_link(world):
    bearer = {"Authentication": f"bearer {world['token']}", "User-Agent": USER_AGENT}
    status, headers, body = wsgi(
        "HEAD", f"/v1/{world['values']['store_id']}/products?per_page=1", bearer
    )
    assert status == 200
    assert body == b""
    assert headers["X-Total-Count"] == "2"
    assert 'rel="next"' in headers["Link"]
    assert headers["Content-Type"] == "application/json"


@pytest.mark.parametrize("route", ROUTES)
def test_head_matches_get_on_a_missing_resource(world, route):
    values = {name: MISSING_ID for name in world["values"]}
    values["store_id"] = world["values"]["store_id"]
    values["sku"] = "no-such-sku"
    bearer = {"Authentication": f"bearer {world['token']}"}
    status, _ = compare(values["store_id"], route, values, bearer)
    if "<" in route:
        assert status in (404, 405)


@pytest.mark.parametrize("route", ROUTES)
def test_head_matches_get_without_a_valid_token(world, route):
    status, _ = compare(
        world["values"]["store_id"], route, world["values"], {"Authentication": "bearer nope"}
    )
    assert status == 401


@pytest.mark.parametrize("route", ROUTES)
def test_head_matches_get_when_suspended(world, route):
    installation = world["installation"]
    installation.suspended_at = timezone.now()
    installation.save()
    bearer = {"Authentication": f"bearer {world['token']}"}
    status, _ = compare(world["values"]["store_id"], route, world["values"], bearer)
    assert status == 402


@pytest.mark.parametrize("route", ROUTES)
def test_head_matches_get_without_the_scope(world, route):
    bare = InstallationFactory(store=world["installation"].store, scopes="")
    bearer = {"Authentication": f"bearer {issue_token(bare)}"}
    status, _ = compare(world["values"]["store_id"], route, world["values"], bearer)
    # The store and webhooks need no scope (the other app's webhook is then a 404).
    assert (status == 403) == route.startswith(("products", "categories", "scripts"))


@pytest.mark.parametrize("route", ROUTES)
def test_head_matches_get_when_rate_limited(world, route, settings):
    settings.STOREFRONT_RATE_LIMIT_SIZE = 0
    bearer = {"Authentication": f"bearer {world['token']}"}
    status, _ = compare(world["values"]["store_id"], route, world["values"], bearer)
    assert status == 429
