"""What the catalogue's services (products, variants, images, categories) share: i18n
objects filled in for the store's languages, unique handles, and the announcement of a
change below a product (its variants, images, stock) as `product/updated`."""

from django.utils import timezone
from django.utils.text import slugify

from storefront.models import Product, Store
from storefront.services import events


def filled(store: Store, values: dict | None, base: dict | None = None) -> dict:
    """An i18n object with a key for every store language (missing ones kept or blank)."""
    merged = {**(base or {}), **(values or {})}
    return {code: merged.get(code, "") for code in store.languages}


def lock_store(store: Store) -> None:
    """Writes that check the store's other rows before adding theirs (handles, the product
    and category limits) run one at a time per store: two at once each saw the other's row
    missing (PostgreSQL; SQLite's writes are serialized already). FOR NO KEY UPDATE: as
    exclusive among these writes, but not against the foreign key checks of rows naming
    the store (a variant's write held its product and checked the store; a category move
    held the store and, through the revision trigger, waited on the product: a deadlock)."""
    Store.objects.select_for_update(no_key=True).filter(pk=store.pk).first()


def unique_handles(store: Store, model, wanted: dict, exclude_pk=None) -> dict:
    """Slugify each language's handle, adding -2, -3... where another row has it."""
    lock_store(store)
    handles = {}
    for code, text in wanted.items():
        base = slugify(text) or model._meta.model_name
        # The handles that may collide, in one query (a superset: SQLite's LIKE folds case).
        taken = set(
            model.objects.filter(store=store, **{f"handle__{code}__startswith": base})
            .exclude(pk=exclude_pk)
            .values_list(f"handle__{code}", flat=True)
        )
        candidate, counter = base, 1
        while candidate in taken:
            counter += 1
            candidate = f"{base}-{counter}"
        handles[code] = candidate
    return handles


def touch(product: Product) -> None:
    Product.objects.filter(pk=product.pk).update(updated_at=timezone.now())
    events.emit(product.store_id, "product/updated", product.pk)
