"""Categories (section 10), the store (section 13) and scripts (section 12)."""

import pytest

from tests.races import Interleaving
from tests.storefront.factories import (
    CategoryFactory,
    InstallationFactory,
    ProductFactory,
    ScriptFactory,
    issue_token,
)

pytestmark = pytest.mark.django_db


def test_category_tree_with_parent_and_subcategories(api):
    kitchen = api.post("categories", {"name": {"es": "Cocina", "pt": "Cozinha"}})
    assert kitchen.status_code == 201
    kitchen = kitchen.json()
    assert list(kitchen) == [
        "id", "name", "description", "handle", "parent", "subcategories",
        "google_shopping_category", "created_at", "updated_at",
    ]  # fmt: skip
    assert kitchen["handle"] == {"es": "cocina", "pt": "cozinha"}
    assert kitchen["parent"] is None and kitchen["subcategories"] == []
    mugs = api.post("categories", {"name": "Tazas", "parent": kitchen["id"]}).json()
    assert mugs["parent"] == kitchen["id"]
    assert mugs["name"] == {"es": "Tazas", "pt": "Tazas"}
    assert api.get(f"categories/{kitchen['id']}").json()["subcategories"] == [mugs["id"]]
    # {"parent": null} detaches.
    assert api.put(f"categories/{mugs['id']}", {"parent": None}).json()["parent"] is None
    assert api.get(f"categories/{kitchen['id']}").json()["subcategories"] == []


def test_category_errors(api, store):
    assert api.post("categories", {}).json() == {"name": ["can't be blank"]}
    assert api.post("categories", {"name": "x", "parent": CategoryFactory().pk}).status_code == 422
    parent = CategoryFactory(store=store)
    child = CategoryFactory(store=store, parent=parent)
    cycle = api.put(f"categories/{parent.pk}", {"parent": child.pk})
    assert cycle.json() == {"parent": ["A category cannot be its own ancestor"]}
    assert api.get("categories/123456789").json() == {
        "code": 404,
        "message": "Not Found",
        "description": "Category with such id does not exist",
    }


def test_category_filters_and_delete(api, store):
    parent = CategoryFactory(store=store, handle={"es": "ropa", "pt": "roupa"})
    child = CategoryFactory(store=store, parent=parent)
    CategoryFactory()  # another store
    ids = lambda response: [item["id"] for item in response.json()]  # noqa: E731
    assert ids(api.get("categories")) == [parent.pk, child.pk]
    assert ids(api.get("categories", params={"parent_id": parent.pk})) == [child.pk]
    assert ids(api.get("categories", params={"parent_id": 0})) == [parent.pk]
    assert ids(api.get("categories", params={"handle": "roupa", "language": "pt"})) == [parent.pk]
    assert ids(api.get("categories", params={"since_id": parent.pk})) == [child.pk]
    assert api.delete(f"categories/{parent.pk}").json() == {}
    assert api.get(f"categories/{child.pk}").json()["parent"] is None


def test_store_resource(api, store):
    response = api.get("store")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == store.pk
    assert body["name"] == {"es": "Mi Tienda", "pt": "Mi Tienda"}
    assert body["main_language"] == response["X-Main-Language"] == "es"
    assert body["languages"] == {
        "es": {"currency": "ARS", "active": True},
        "pt": {"currency": "ARS", "active": True},
    }
    assert body["email"] == store.owner.email
    assert body["country"] == "AR" and body["main_currency"] == "ARS"
    assert body["logo"] is None
    assert api.get("store", params={"fields": "id,main_language"}).json() == {
        "id": store.pk,
        "main_language": "es",
    }


def test_scripts_crud_and_validation(api):
    invalid = api.post("scripts", {"invalid_name": "x", "where": "bogus"})
    assert invalid.status_code == 422
    assert invalid.json() == {
        "src": ["can't be blank"],
        "event": ["can't be blank"],
        "where": ["is not included in the list"],
    }
    assert "src" in api.post("scripts", {"src": "http://a.example/x.js", "event": "onload"}).json()
    created = api.post(
        "scripts", {"src": "https://a.example/x.js", "event": "onload", "where": "store,checkout"}
    )
    assert created.status_code == 201
    script = created.json()
    assert list(script) == ["id", "src", "event", "where", "created_at", "updated_at"]
    assert script["where"] == "store,checkout"
    updated = api.put(f"scripts/{script['id']}", {"event": "onfirstinteraction"}).json()
    assert updated["event"] == "onfirstinteraction"
    assert [s["id"] for s in api.get("scripts").json()] == [script["id"]]
    assert api.delete(f"scripts/{script['id']}").json() == {}
    assert api.get(f"scripts/{script['id']}").status_code == 404


def test_an_app_sees_only_its_own_scripts(api, store, client):
    other_app = InstallationFactory(store=store)
    ScriptFactory(store=store, app=other_app.app)
    assert api.get("scripts").json() == []
    headers = {"Authentication": f"bearer {issue_token(other_app)}", "User-Agent": "x (y)"}
    assert len(client.get(f"/v1/{store.pk}/scripts", headers=headers).json()) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_reparenting_never_makes_a_cycle(store):
    """A -> under B and B -> under A at once: each ancestor check read the other's old
    parent, and the two transactions then deadlocked on PostgreSQL's deferred foreign key
    checks (one request a 500). The second must wait for the first and be refused."""
    from django.db import transaction

    from storefront.errors import Invalid
    from storefront.models import Category
    from storefront.services.categories import update_category

    first, second = CategoryFactory(store=store), CategoryFactory(store=store)
    interleaving = Interleaving()

    def put_first_under_second():
        with transaction.atomic():
            update_category(Category.objects.get(pk=first.pk), {"parent": second.pk})
            interleaving.pause()  # the other request arrives while this one is uncommitted

    def put_second_under_first():
        update_category(Category.objects.get(pk=second.pk), {"parent": first.pk})

    _, refused = interleaving.run(put_first_under_second, put_second_under_first, (Invalid,))
    assert isinstance(refused, Invalid)
    assert Category.objects.get(pk=second.pk).parent_id is None


@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_never_share_a_handle(store):
    """Two categories named alike at once: each handle check ran before the other's row
    was committed and both stored `race` (PostgreSQL), so one was unreachable by handle.
    The second must wait for the first and take `race-2`."""
    from django.db import transaction

    from storefront.services.categories import create_category

    interleaving = Interleaving()

    def first():
        with transaction.atomic():
            created = create_category(store, {"name": {"es": "Race"}})
            interleaving.pause()  # the other request arrives while this one is uncommitted
        return created

    def second():
        return create_category(store, {"name": {"es": "Race"}})

    handles = [created.handle["es"] for created in interleaving.run(first, second)]
    assert handles == ["race", "race-2"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("link", ["product", "subcategory", "product_update", "move"])
def test_linking_to_a_category_deleted_meanwhile_is_422(store, monkeypatch, link):
    """A product or subcategory linked to a category that another request deletes between
    this one's check and its commit: PostgreSQL's deferred foreign key check failed at
    commit, a 500 (seen through gunicorn: 9 of 15 rounds of create-under vs delete). It is
    the 422 of a category that is not there. SQLite runs one writer at a time: there the
    delete waits for the link and removes it."""
    from storefront.errors import Invalid
    from storefront.models import Category, Product
    from storefront.services import categories, events, products

    target, other = CategoryFactory(store=store), CategoryFactory(store=store)
    product = ProductFactory(store=store)
    # The link is written, not committed: the other request deletes now (SQLite: the
    # delete waits for this writer instead).
    interleaving = Interleaving()
    monkeypatch.setattr(events, "emit", interleaving.after(events.emit))

    def write_link():
        if link == "product":
            products.create_product(store, {"name": {"es": "New"}, "categories": [target.pk]})
        elif link == "product_update":
            products.update_product(Product.objects.get(pk=product.pk), {"categories": [target.pk]})
        elif link == "subcategory":
            categories.create_category(store, {"name": {"es": "Child"}, "parent": target.pk})
        else:
            categories.update_category(Category.objects.get(pk=other.pk), {"parent": target.pk})
        return "linked"

    def delete_target():
        categories.delete_category(Category.objects.get(pk=target.pk))

    linked, _ = interleaving.run(write_link, delete_target, (Invalid,))
    field = "categories" if link.startswith("product") else "parent"
    outcome = linked.fields if isinstance(linked, Invalid) else linked
    assert outcome in ("linked", {field: [f"Category {target.pk} does not exist"]})
    assert not Category.objects.filter(pk=target.pk).exists()
    assert not Product.categories.through.objects.filter(category_id=target.pk).exists()
    assert not Category.objects.filter(parent_id=target.pk).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("write", "first", "other"),
    [
        ("category_handle", "write", "move"),
        ("product_handle", "move", "move"),
        ("variant", "move", "move"),
        ("product_delete", "write", "category_delete"),
    ],
)
def test_catalog_writes_and_category_moves_at_once_are_no_deadlock(
    store, monkeypatch, write, first, other
):
    """A handle change locked its category, then the store (for the handles); a product
    write locked the product and its store's row (FOR UPDATE through select_related); a
    category move locked the store (FOR UPDATE, which also holds up foreign key checks),
    then the category, whose write bumps its products' revision. Each waited on the other
    and PostgreSQL failed one (an ERP-like sync racing 5 writes x 25 rounds: 28 to 66
    failures, 500s). Now writes that take the store take it first, FOR NO KEY UPDATE, and
    a product write locks the product's row alone. A product's delete held the product
    and waited on its category links, which a category's delete held while its revision
    trigger waited on the product: every write touching categories or links takes the
    store first. `first` runs until just before its last lock (a product's delete: just
    after it), then waits for the other to block (or to finish)."""
    from storefront.models import Category, Product, Variant
    from storefront.services import catalog, categories, products, variants
    from tests.storefront.factories import VariantFactory

    moved_to = CategoryFactory(store=store)
    category = CategoryFactory(store=store)
    product = ProductFactory(store=store)
    variant = VariantFactory(product=product)
    product.categories.set([category])
    interleaving = Interleaving()
    module, name = (catalog, "unique_handles") if first == "write" else (categories, "_parent")
    if write == "product_delete":
        module, name = products, "locked"
    wrap = interleaving.after if write == "product_delete" else interleaving.before
    monkeypatch.setattr(module, name, wrap(getattr(module, name)))

    def run_write():
        if write == "product_handle":
            products.update_product(
                Product.objects.select_related("store").get(pk=product.pk),
                {"handle": {"es": "nuevo"}},
            )
        elif write == "category_handle":
            categories.update_category(
                Category.objects.select_related("store").get(pk=category.pk),
                {"handle": {"es": "nueva"}},
            )
        elif write == "product_delete":
            products.delete_product(Product.objects.select_related("store").get(pk=product.pk))
        else:
            variants.update_variant(Variant.objects.get(pk=variant.pk), {"price": "3.00"})

    def run_move():
        found = Category.objects.select_related("store").get(pk=category.pk)
        if other == "category_delete":
            categories.delete_category(found)
        else:
            categories.update_category(found, {"parent": moved_to.pk})

    interleaving.run(*((run_write, run_move) if first == "write" else (run_move, run_write)))
    if other == "move":
        assert Category.objects.get(pk=category.pk).parent_id == moved_to.pk
    else:
        assert not Category.objects.filter(pk=category.pk).exists()
