"""A store's categories: a tree (`parent`), with i18n names and unique handles."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import IntegrityError, transaction

from storefront.errors import Invalid
from storefront.models import Category, Store
from storefront.services import catalog, events
from storefront.services.locks import locked

MAX_CATEGORIES = 5000


def of_store(store: Store, ids: list[int], field: str = "categories") -> list[Category]:
    """The store's categories with these ids (a product's); an id of none is a field error."""
    found = {category.pk: category for category in store.categories.filter(pk__in=ids)}
    missing = [str(pk) for pk in dict.fromkeys(ids) if pk not in found]
    if missing:
        raise Invalid(fields={field: [f"Category {', '.join(missing)} does not exist"]})
    return list(found.values())


@contextmanager
def linking(store: Store, ids: list, field: str) -> Iterator[None]:
    """Around a transaction that links to the categories `ids` (a product's categories, a
    new parent). One deleted by a request that committed after this one read it fails the
    deferred foreign key check at commit (PostgreSQL; a 500): that is the 422 of a category
    that is not there."""
    try:
        yield
    except IntegrityError:
        of_store(store, [pk for pk in ids if pk is not None], field)
        raise


def _parent(store: Store, parent_id: int | None, category: Category | None = None):
    if parent_id is None:
        return None
    parent = store.categories.filter(pk=parent_id).first()
    if parent is None:
        raise Invalid(fields={"parent": [f"Category {parent_id} does not exist"]})
    ancestor = parent
    while category is not None and ancestor is not None:
        if ancestor.pk == category.pk:
            raise Invalid(fields={"parent": ["A category cannot be its own ancestor"]})
        ancestor = ancestor.parent
    return parent


def create_category(store: Store, data: dict) -> Category:
    with linking(store, [data.get("parent")], "parent"), transaction.atomic():
        catalog.lock_store(store)
        if store.categories.count() >= MAX_CATEGORIES:
            raise Invalid(f"Store has reached maximum limit of {MAX_CATEGORIES} allowed categories")
        name = catalog.filled(store, data["name"])
        category = Category.objects.create(
            store=store,
            name=name,
            description=catalog.filled(store, data.get("description")),
            handle=catalog.unique_handles(
                store, Category, catalog.filled(store, data.get("handle"), base=name)
            ),
            parent=_parent(store, data.get("parent")),
            google_shopping_category=data.get("google_shopping_category") or None,
        )
        events.emit(store.pk, "category/created", category.pk)
    return category


def update_category(category: Category, data: dict) -> Category:
    store = category.store
    with linking(store, [data.get("parent")], "parent"), transaction.atomic():
        # Category writes one at a time per store, the store's row first: two opposite
        # moves at once each passed the ancestor check on the other's old parent and then
        # deadlocked on PostgreSQL's deferred foreign key checks (a 500); a category's
        # write also locks its products (revision trigger), so two of them, or a handle
        # change taking the store after its category, deadlocked each other.
        catalog.lock_store(store)
        category = locked(Category.objects, category.pk, "Category")
        for field in ("name", "description"):
            if field in data:
                setattr(
                    category,
                    field,
                    catalog.filled(store, data[field], base=getattr(category, field)),
                )
        if "handle" in data:
            category.handle = catalog.unique_handles(
                store,
                Category,
                catalog.filled(store, data["handle"], base=category.handle),
                category.pk,
            )
        if "parent" in data:
            category.parent = _parent(store, data["parent"], category)
        if "google_shopping_category" in data:
            category.google_shopping_category = data["google_shopping_category"] or None
        category.save()
        events.emit(store.pk, "category/updated", category.pk)
    return category


def delete_category(category: Category) -> None:
    """Subcategories move up to the top level; products just lose the category."""
    store_id, pk = category.store_id, category.pk
    with transaction.atomic():
        catalog.lock_store(category.store)  # as every category write (update_category)
        category = locked(Category.objects, pk, "Category")
        category.delete()
        events.emit(store_id, "category/deleted", pk)
