"""Variants of a product: one by one, the whole collection (PUT), several (PATCH), stock
changes and the bulk price/stock update across products.

Every write locks the product row first (products in id order when several), so two
requests changing one product's variants run one after the other.
"""

from collections import Counter

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.db.models.functions import Greatest
from django.utils import timezone

from storefront.errors import Invalid, Malformed
from storefront.models import SKU_CONSTRAINT, Product, Store, Variant
from storefront.services import catalog, events
from storefront.services.locks import locked

MAX_VARIANTS = 1000
SKU_TAKEN = "has already been taken"

VARIANT_FIELDS = (
    "price",
    "compare_at_price",
    "promotional_price",
    "stock",
    "weight",
    "width",
    "height",
    "depth",
    "sku",
    "barcode",
    "mpn",
    "age_group",
    "gender",
    "cost",
)


def check_variant(product: Product, data: dict, seen: list, exclude_pk=None) -> None:
    """Values match the attributes, combinations and SKUs are unique, image is the product's.

    `seen` collects the value combinations of one request's variants.
    """
    values = [catalog.filled(product.store, value) for value in data.get("values", [])]
    if "values" in data or exclude_pk is None:
        if len(values) != len(product.attributes):
            raise Invalid(
                fields={
                    "values": [f"must have {len(product.attributes)} entries, one per attribute"]
                }
            )
        others = product.variants.exclude(pk=exclude_pk).values_list("values", flat=True)
        if values in seen or values in list(others):
            raise Invalid("Variants cannot be repeated")
        seen.append(values)
    sku = data.get("sku")
    if sku:
        taken = Variant.objects.filter(store_id=product.store_id, sku=sku)
        if taken.exclude(pk=exclude_pk).exists():
            raise Invalid(fields={"sku": [SKU_TAKEN]})
    image_id = data.get("image_id")
    if image_id and not product.images.filter(pk=image_id).exists():
        raise Invalid(fields={"image_id": [f"Image {image_id} is not an image of this product"]})


def save_variant(variant: Variant, data: dict, store: Store) -> Variant:
    for field in VARIANT_FIELDS:
        if field in data:
            setattr(variant, field, data[field])
    if "values" in data:
        variant.values = [catalog.filled(store, value) for value in data["values"]]
    if "image_id" in data:
        variant.image_id = data["image_id"]
    if "position" in data:
        variant.position = data["position"]
    variant.sku = variant.sku or None
    try:
        with transaction.atomic():
            variant.save()
    except IntegrityError as error:
        # A concurrent request took the SKU after `check_variant` looked.
        if SKU_CONSTRAINT in str(error) or "storefront_variant.sku" in str(error):
            raise Invalid(fields={"sku": [SKU_TAKEN]}) from error
        raise
    return variant


def create_variant(product: Product, data: dict) -> Variant:
    with transaction.atomic():
        product = locked(Product.objects.select_related("store"), product.pk, "Product")
        if product.variants.count() >= MAX_VARIANTS:
            raise too_many_variants()
        check_variant(product, data, [])
        last = product.variants.aggregate(last=Max("position"))["last"] or 0
        variant = save_variant(Variant(product=product, position=last + 1), data, product.store)
        catalog.touch(product)
    return variant


def update_variant(variant: Variant, data: dict) -> Variant:
    with transaction.atomic():
        product = locked(Product.objects.select_related("store"), variant.product_id, "Product")
        # As it is now: saving the one the view read would insert it again if it was deleted.
        variant = locked(product.variants, variant.pk, "Variant")
        check_variant(product, data, [], exclude_pk=variant.pk)
        variant = save_variant(variant, data, product.store)
        catalog.touch(product)
    return variant


def delete_variant(variant: Variant) -> None:
    with transaction.atomic():
        product = locked(Product.objects, variant.product_id, "Product")
        variant = locked(product.variants, variant.pk, "Variant")
        if product.variants.count() <= 1:
            raise Invalid("A product must have at least one variant")
        variant.delete()
        catalog.touch(product)


def too_many_variants() -> Invalid:
    return Invalid(f"Product is not allowed to have more than {MAX_VARIANTS} variants")


def replace_variants(product: Product, items: list[dict]) -> list[Variant]:
    """PUT of the whole collection: variants are matched by their values combination;
    matched ones are updated, new ones created, the others deleted."""
    if not items:
        raise Malformed("There must be at least one variant")
    if len(items) > MAX_VARIANTS:
        # The collection is the product's variants: no more than a product may have.
        raise too_many_variants()
    with transaction.atomic():
        product = locked(Product.objects.select_related("store"), product.pk, "Product")
        store = product.store
        current = {
            _values_key(variant.values): variant for variant in product.variants.order_by("id")
        }
        seen: set[str] = set()
        kept = []
        for position, data in enumerate(items, start=1):
            if "values" not in data and len(product.attributes):
                raise Malformed("Variant values should not be empty")
            values = [catalog.filled(store, value) for value in data.get("values", [])]
            if len(values) != len(product.attributes):
                raise Malformed("Invalid values format")
            if _values_key(values) in seen:
                raise Invalid("Variants cannot be repeated")
            seen.add(_values_key(values))
            existing = current.get(_values_key(values))
            data = {**data, "values": values, "position": data.get("position", position)}
            _check_sku_and_image(product, data, existing)
            kept.append(save_variant(existing or Variant(product=product), data, store))
        kept_ids = {variant.pk for variant in kept}
        product.variants.exclude(pk__in=kept_ids).delete()
        catalog.touch(product)
    return kept


def update_variants(product: Product, items: list[dict]) -> list[Variant]:
    """PATCH of several existing variants (each item names its `id`); none is created
    or deleted."""
    ids = [item.get("id") for item in items]
    if None in ids:
        raise Invalid(fields={"id": ["can't be blank"]})
    # Counted once (ids.count per id was quadratic: 20,000 ids held a thread half a minute).
    duplicates = sorted(pk for pk, times in Counter(ids).items() if times > 1)
    if duplicates:
        raise Invalid(f"Duplicate variant ids: {', '.join(map(str, duplicates))}")
    with transaction.atomic():
        product = locked(Product.objects.select_related("store"), product.pk, "Product")
        variants = {variant.pk: variant for variant in product.variants.filter(pk__in=ids)}
        missing = [str(pk) for pk in ids if pk not in variants]
        if missing:
            raise Invalid(fields={"id": [f"Variant {', '.join(missing)} does not exist"]})
        for item in items:
            variant = variants[item["id"]]
            check_variant(product, item, [], exclude_pk=variant.pk)
            save_variant(variant, item, product.store)
        catalog.touch(product)
    return list(product.variants.all())


def change_stock(product: Product, action: str, value, variant_id=None) -> list[Variant]:
    """`replace` sets the stock (null: not managed); `variation` adds to managed stock and
    never goes below zero. One UPDATE, so concurrent variations all count."""
    with transaction.atomic():
        product = locked(Product.objects, product.pk, "Product")
        variants = product.variants.all()
        if variant_id is not None:
            variants = variants.filter(pk=variant_id)
            if not variants.exists():
                raise Invalid(fields={"id": [f"Variant {variant_id} does not exist"]})
        if action == "replace":
            variants.update(stock=value, updated_at=timezone.now())
        else:
            variants.filter(stock__isnull=False).update(
                stock=Greatest(F("stock") + value, 0), updated_at=timezone.now()
            )
        catalog.touch(product)
    return list(variants.order_by("position", "id"))


def update_stock_price(store: Store, products: list[tuple[int, list[dict]]]) -> list[dict]:
    """Bulk price/stock changes (`{"id": <variant>, "price"?, "stock"?}` per variant):
    each applies if the variant is that product's in this store, the others report
    failure. Products are locked first, in id order, as every variant write does."""
    now = timezone.now()
    with transaction.atomic():
        ids = {product_id for product_id, _ in products}
        locked = Product.objects.select_for_update().filter(store=store, pk__in=ids)
        found = set(locked.order_by("pk").values_list("pk", flat=True))
        changed = set()
        results = []
        for product_id, variants in products:
            outcome = []
            for change in variants:
                fields = {name: value for name, value in change.items() if name != "id"}
                done = product_id in found and bool(
                    Variant.objects.filter(pk=change["id"], product_id=product_id).update(
                        **fields, updated_at=now
                    )
                )
                outcome.append({"id": change["id"], "success": done})
                if done:
                    changed.add(product_id)
            results.append({"id": product_id, "variants": outcome})
        Product.objects.filter(pk__in=changed).update(updated_at=now)
        for product_id in sorted(changed):
            events.emit(store.pk, "product/updated", product_id)
    return results


def _values_key(values: list) -> str:
    return repr([sorted(value.items()) for value in values])


def _check_sku_and_image(product: Product, data: dict, existing: Variant | None) -> None:
    check_variant(
        product,
        {key: value for key, value in data.items() if key != "values"},
        [],
        exclude_pk=existing.pk if existing else 0,
    )
