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


def unique_handles(store: Store, model, wanted: dict, exclude_pk=None) -> dict:
    """Slugify each language's handle, adding -2, -3... where another row has it."""
    handles = {}
    for code, text in wanted.items():
        base = slugify(text) or model._meta.model_name
        candidate, counter = base, 1
        taken = model.objects.filter(store=store).exclude(pk=exclude_pk)
        while taken.filter(**{f"handle__{code}": candidate}).exists():
            counter += 1
            candidate = f"{base}-{counter}"
        handles[code] = candidate
    return handles


def touch(product: Product) -> None:
    Product.objects.filter(pk=product.pk).update(updated_at=timezone.now())
    events.emit(product.store_id, "product/updated", product.pk)
