"""Tenant isolation of the store API, through real URLs: for every kind of caller
(anonymous, another store's app, this store's app with each scope set, a suspended store's
or installation's app) and every operation class (read, write, delete, admin: scripts and
webhook subscriptions), the answer is allowed or refused as Tiendanube's rules say, and a
refused call changes nothing."""

from dataclasses import dataclass

import pytest
from django.utils import timezone

from storefront.models import Product, Script, Variant, Webhook
from tests.security.storefront_support import tenant
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import ProductFactory, VariantFactory

pytestmark = pytest.mark.django_db

ALL_SCOPES = "read_products,write_products,write_scripts,read_orders"


@dataclass
class Operation:
    method: str
    path: str
    body: dict | None
    ok: int
    # Scope sets of this store's app that may do it.
    scopes: tuple[frozenset, ...]


READERS = (frozenset({"read_products"}), frozenset({"write_products"}))
WRITERS = (frozenset({"write_products"}),)
OPERATIONS = {
    "read product": Operation("GET", "products/{p}", None, 200, READERS),
    "read list": Operation("GET", "products", None, 200, READERS),
    "write product": Operation("PUT", "products/{p}", {"published": False}, 200, WRITERS),
    "create product": Operation("POST", "products", {"name": "New"}, 201, WRITERS),
    "delete product": Operation("DELETE", "products/{p}", None, 200, WRITERS),
    "admin: script": Operation(
        "POST",
        "scripts",
        {"src": "https://app.example.com/w.js", "event": "onload", "where": "store"},
        201,
        (frozenset({"write_scripts"}),),
    ),
    "admin: webhook": Operation(
        "POST",
        "webhooks",
        {"url": "https://hooks.example.com/x", "event": "product/created"},
        201,
        READERS,
    ),
}
SCOPE_SETS = {
    "no scope": "",
    "read_products": "read_products",
    "write_products": "write_products",
    "write_scripts": "write_scripts",
    "read_orders": "read_orders",
}
CALLERS = [
    "anonymous",
    "another store's app",
    *[f"this store, {name}" for name in SCOPE_SETS],
    "suspended store",
    "suspended installation",
]


@pytest.fixture
def target():
    """The store under attack: its own app (all scopes) and a product."""
    owner = tenant(app__scopes=ALL_SCOPES)
    product = ProductFactory(store=owner.installation.store, published=True)
    product.first_variant = VariantFactory(product=product)
    return owner, product


def caller_api(client, kind: str, store_id: int) -> tuple[StoreApi, frozenset | None]:
    """The API client of `kind` against `store_id`; its scope set when it is this store's."""
    if kind == "anonymous":
        api = StoreApi(client, store_id, "")
        api.request = _without_token(api.request)
        return api, None
    if kind == "another store's app":
        return tenant(app__scopes=ALL_SCOPES).api(client, store_id), None
    if kind.startswith("this store, "):
        scopes = SCOPE_SETS[kind.removeprefix("this store, ")]
        app = tenant(app__scopes=scopes or "read_orders", scopes=scopes, store_id=store_id)
        return app.api(client), frozenset(filter(None, scopes.split(",")))
    app = tenant(app__scopes=ALL_SCOPES, store_id=store_id)
    if kind == "suspended store":
        app.installation.store.__class__.objects.filter(pk=store_id).update(
            suspended_at=timezone.now()
        )
    else:
        app.installation.__class__.objects.filter(pk=app.installation.pk).update(
            suspended_at=timezone.now()
        )
    return app.api(client), None


def _without_token(request):
    def send(method, path, body=None, headers=None, **extra):
        return request(method, path, body, {**(headers or {}), "Authentication": None}, **extra)

    return send


def expected(kind: str, operation: Operation, scopes: frozenset | None) -> int:
    if kind in ("anonymous", "another store's app"):
        return 401
    if kind.startswith("suspended"):
        return 402
    return operation.ok if any(need <= scopes for need in operation.scopes) else 403


def snapshot(store_id: int) -> tuple:
    products = Product.objects.filter(store_id=store_id)
    return (
        sorted(products.values_list("id", "published", "updated_at")),
        sorted(Variant.objects.filter(product__store_id=store_id).values_list("id", "stock")),
        Script.objects.filter(store_id=store_id).count(),
        Webhook.objects.filter(installation__store_id=store_id).count(),
    )


@pytest.mark.parametrize("operation_name", list(OPERATIONS))
@pytest.mark.parametrize("kind", CALLERS)
def test_isolation_matrix(client, target, kind, operation_name):
    owner, product = target
    operation = OPERATIONS[operation_name]
    api, scopes = caller_api(client, kind, owner.store_id)
    before = snapshot(owner.store_id)
    response = api.request(operation.method, operation.path.format(p=product.pk), operation.body)
    want = expected(kind, operation, scopes)
    assert response.status_code == want, (kind, operation_name, response.content)
    body = response.json()
    if want >= 400:
        assert body["code"] == want and body["description"], body
        assert snapshot(owner.store_id) == before
    elif operation.method == "GET":
        assert str(product.pk) in response.content.decode()


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_another_stores_objects_are_not_found_through_ones_own_store(client, target, method):
    owner, product = target
    variant = product.first_variant
    intruder = tenant(app__scopes=ALL_SCOPES)
    before = snapshot(owner.store_id)
    paths = [f"products/{product.pk}", f"products/{product.pk}/variants/{variant.pk}"]
    for path in paths:
        body = {"published": False, "stock": 1} if method == "PUT" else None
        response = intruder.api(client).request(method, path, body)
        assert response.status_code == 404, response.content
        assert response.json()["code"] == 404
    assert snapshot(owner.store_id) == before


def test_a_list_shows_only_the_callers_store(client, target):
    _, product = target
    intruder = tenant(app__scopes=ALL_SCOPES)
    ProductFactory(store=intruder.installation.store)
    listed = intruder.api(client).get("products")
    assert listed.status_code == 200
    assert product.pk not in [item["id"] for item in listed.json()]
    assert listed["X-Total-Count"] == "1"
