"""Business rules of a store's catalogue: products with their variants and images,
categories, and the scripts apps add to the store front.

Functions take validated plain data (see `storefront.api.serializers`), run in one
transaction, and announce product/category events once committed. Rule violations
raise DRF errors: a field map (422 `{"field": ["message"]}`) or `Unprocessable`
(422 `{"code", "message", "description"}`), as Tiendanube answers them.
"""

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.text import slugify
from rest_framework.exceptions import ValidationError

from storefront import events, images
from storefront.errors import Unprocessable
from storefront.models import (
    SKU_CONSTRAINT,
    App,
    Category,
    Product,
    ProductImage,
    Script,
    Store,
    Variant,
)

MAX_PRODUCTS = 100_000
MAX_VARIANTS = 1000
MAX_IMAGES = 250
MAX_CATEGORIES = 5000
SKU_TAKEN = "has already been taken"

PRODUCT_FLAGS = (
    "published",
    "free_shipping",
    "requires_shipping",
    "video_url",
    "seo_title",
    "seo_description",
    "brand",
    "tags",
)
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


class BadVariants(ValidationError):
    """The bulk variant replacement refused its input (400 in the envelope form)."""

    status_code = 400


def _filled(store: Store, values: dict | None, base: dict | None = None) -> dict:
    """An i18n object with a key for every store language (missing ones kept or blank)."""
    merged = {**(base or {}), **(values or {})}
    return {code: merged.get(code, "") for code in store.languages}


def _unique_handles(store: Store, model, wanted: dict, exclude_pk=None) -> dict:
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


def _touch(product: Product) -> None:
    Product.objects.filter(pk=product.pk).update(updated_at=timezone.now())
    events.emit(product.store_id, "product/updated", product.pk)


def _store_categories(store: Store, ids: list[int]) -> list[Category]:
    found = {category.pk: category for category in store.categories.filter(pk__in=ids)}
    missing = [str(pk) for pk in dict.fromkeys(ids) if pk not in found]
    if missing:
        raise ValidationError({"categories": [f"Category {', '.join(missing)} does not exist"]})
    return list(found.values())


# --- products ------------------------------------------------------------------------


def create_product(store: Store, data: dict) -> Product:
    attributes = [_filled(store, value) for value in data.get("attributes", [])]
    variants = data.get("variants") or [{}]
    new_images = data.get("images", [])
    with transaction.atomic():
        if Product.objects.filter(store=store).count() >= MAX_PRODUCTS:
            raise Unprocessable(
                f"Store has reached maximum limit of {MAX_PRODUCTS} allowed products"
            )
        if len(variants) > MAX_VARIANTS:
            raise Unprocessable(f"Product is not allowed to have more than {MAX_VARIANTS} variants")
        if len(new_images) > MAX_IMAGES:
            raise Unprocessable(f"Product is not allowed to have more than {MAX_IMAGES} images")
        categories = _store_categories(store, data.get("categories", []))
        name = _filled(store, data["name"])
        product = Product(
            store=store,
            name=name,
            description=_filled(store, data.get("description")),
            attributes=attributes,
            seo_title=data.get("seo_title") or name[store.main_language][:70],
        )
        for field in PRODUCT_FLAGS:
            if field in data and field != "seo_title":
                setattr(product, field, data[field])
        product.handle = _unique_handles(
            store, Product, _filled(store, data.get("handle"), base=name)
        )
        product.save()
        for position, image in enumerate(new_images, start=1):
            ProductImage.objects.create(
                product=product,
                src=_src(product, image),
                position=image.get("position", position),
                alt=image.get("alt", []),
            )
        seen: list[list] = []
        for position, variant in enumerate(variants, start=1):
            _check_variant(product, variant, seen)
            _save_variant(Variant(product=product, position=position), variant, store)
        product.categories.set(categories)
        events.emit(store.pk, "product/created", product.pk)
    return product


def update_product(product: Product, data: dict) -> Product:
    store = product.store
    with transaction.atomic():
        product = Product.objects.select_for_update().select_related("store").get(pk=product.pk)
        for field in ("name", "description"):
            if field in data:
                setattr(product, field, _filled(store, data[field], base=getattr(product, field)))
        if "handle" in data:
            product.handle = _unique_handles(
                store, Product, _filled(store, data["handle"], base=product.handle), product.pk
            )
        if "attributes" in data:
            attributes = [_filled(store, value) for value in data["attributes"]]
            lengths = {len(values) for values in product.variants.values_list("values", flat=True)}
            if lengths - {len(attributes)}:
                raise ValidationError(
                    {"attributes": ["must have as many entries as each variant's values"]}
                )
            product.attributes = attributes
        for field in PRODUCT_FLAGS:
            if field in data:
                setattr(product, field, data[field])
        product.save()
        if "categories" in data:
            product.categories.set(_store_categories(store, data["categories"]))
        events.emit(store.pk, "product/updated", product.pk)
    return product


def delete_product(product: Product) -> None:
    store_id, pk = product.store_id, product.pk
    with transaction.atomic():
        images.forget(store_id, list(product.images.values_list("src", flat=True)))
        product.delete()
        events.emit(store_id, "product/deleted", pk)


# --- variants ------------------------------------------------------------------------


def _check_variant(product: Product, data: dict, seen: list, exclude_pk=None) -> None:
    """Values match the attributes, combinations and SKUs are unique, image is the product's.

    `seen` collects the value combinations of one request's variants.
    """
    values = [_filled(product.store, value) for value in data.get("values", [])]
    if "values" in data or exclude_pk is None:
        if len(values) != len(product.attributes):
            raise ValidationError(
                {"values": [f"must have {len(product.attributes)} entries, one per attribute"]}
            )
        others = product.variants.exclude(pk=exclude_pk).values_list("values", flat=True)
        if values in seen or values in list(others):
            raise Unprocessable("Variants cannot be repeated")
        seen.append(values)
    sku = data.get("sku")
    if sku:
        taken = Variant.objects.filter(store_id=product.store_id, sku=sku)
        if taken.exclude(pk=exclude_pk).exists():
            raise ValidationError({"sku": [SKU_TAKEN]})
    image_id = data.get("image_id")
    if image_id and not product.images.filter(pk=image_id).exists():
        raise ValidationError({"image_id": [f"Image {image_id} is not an image of this product"]})


def _save_variant(variant: Variant, data: dict, store: Store) -> Variant:
    for field in VARIANT_FIELDS:
        if field in data:
            setattr(variant, field, data[field])
    if "values" in data:
        variant.values = [_filled(store, value) for value in data["values"]]
    if "image_id" in data:
        variant.image_id = data["image_id"]
    if "position" in data:
        variant.position = data["position"]
    variant.sku = variant.sku or None
    try:
        with transaction.atomic():
            variant.save()
    except IntegrityError as error:
        # A concurrent request took the SKU after `_check_variant` looked.
        if SKU_CONSTRAINT in str(error) or "storefront_variant.sku" in str(error):
            raise ValidationError({"sku": [SKU_TAKEN]}) from error
        raise
    return variant


def create_variant(product: Product, data: dict) -> Variant:
    with transaction.atomic():
        product = Product.objects.select_for_update().select_related("store").get(pk=product.pk)
        if product.variants.count() >= MAX_VARIANTS:
            raise Unprocessable(f"Product is not allowed to have more than {MAX_VARIANTS} variants")
        _check_variant(product, data, [])
        last = product.variants.aggregate(last=Max("position"))["last"] or 0
        variant = _save_variant(Variant(product=product, position=last + 1), data, product.store)
        _touch(product)
    return variant


def update_variant(variant: Variant, data: dict) -> Variant:
    with transaction.atomic():
        product = (
            Product.objects.select_for_update().select_related("store").get(pk=variant.product_id)
        )
        _check_variant(product, data, [], exclude_pk=variant.pk)
        variant = _save_variant(variant, data, product.store)
        _touch(product)
    return variant


def delete_variant(variant: Variant) -> None:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=variant.product_id)
        if product.variants.count() <= 1:
            raise Unprocessable("A product must have at least one variant")
        variant.delete()
        _touch(product)


def replace_variants(product: Product, items: list[dict]) -> list[Variant]:
    """PUT of the whole collection: variants are matched by their values combination;
    matched ones are updated, new ones created, the others deleted."""
    if not items:
        raise BadVariants("There must be at least one variant")
    with transaction.atomic():
        product = Product.objects.select_for_update().select_related("store").get(pk=product.pk)
        store = product.store
        current = {
            _values_key(variant.values): variant for variant in product.variants.order_by("id")
        }
        seen: list = []
        kept = []
        for position, data in enumerate(items, start=1):
            if "values" not in data and len(product.attributes):
                raise BadVariants("Variant values should not be empty")
            values = [_filled(store, value) for value in data.get("values", [])]
            if len(values) != len(product.attributes):
                raise BadVariants("Invalid values format")
            if values in seen:
                raise Unprocessable("Variants cannot be repeated")
            seen.append(values)
            existing = current.get(_values_key(values))
            data = {**data, "values": values, "position": data.get("position", position)}
            _check_sku_and_image(product, data, existing)
            kept.append(_save_variant(existing or Variant(product=product), data, store))
        kept_ids = {variant.pk for variant in kept}
        product.variants.exclude(pk__in=kept_ids).delete()
        _touch(product)
    return kept


def update_variants(product: Product, items: list[dict]) -> list[Variant]:
    """PATCH of several existing variants (each item names its `id`); none is created
    or deleted."""
    ids = [item.get("id") for item in items]
    if None in ids:
        raise ValidationError({"id": ["can't be blank"]})
    duplicates = sorted({pk for pk in ids if ids.count(pk) > 1})
    if duplicates:
        raise Unprocessable(f"Duplicate variant ids: {', '.join(map(str, duplicates))}")
    with transaction.atomic():
        product = Product.objects.select_for_update().select_related("store").get(pk=product.pk)
        variants = {variant.pk: variant for variant in product.variants.filter(pk__in=ids)}
        missing = [str(pk) for pk in ids if pk not in variants]
        if missing:
            raise ValidationError({"id": [f"Variant {', '.join(missing)} does not exist"]})
        for item in items:
            variant = variants[item["id"]]
            _check_variant(product, item, [], exclude_pk=variant.pk)
            _save_variant(variant, item, product.store)
        _touch(product)
    return list(product.variants.all())


def change_stock(product: Product, action: str, value, variant_id=None) -> list[Variant]:
    """`replace` sets the stock (null: not managed); `variation` adds to managed stock and
    never goes below zero. One UPDATE, so concurrent variations all count."""
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=product.pk)
        variants = product.variants.all()
        if variant_id is not None:
            variants = variants.filter(pk=variant_id)
            if not variants.exists():
                raise ValidationError({"id": [f"Variant {variant_id} does not exist"]})
        if action == "replace":
            variants.update(stock=value, updated_at=timezone.now())
        else:
            variants.filter(stock__isnull=False).update(
                stock=Greatest(F("stock") + value, 0), updated_at=timezone.now()
            )
        _touch(product)
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
    _check_variant(
        product,
        {key: value for key, value in data.items() if key != "values"},
        [],
        exclude_pk=existing.pk if existing else 0,
    )


# --- images --------------------------------------------------------------------------


def _src(product: Product, data: dict) -> str:
    """The image's URL: as given, or where its uploaded attachment is now kept."""
    if "upload" in data:
        return images.store(product.store_id, product.pk, data["upload"])
    try:
        images.check_src(product.store_id, data["src"])
    except images.ForeignUpload as error:
        raise ValidationError({"src": [str(error)]}) from error
    return data["src"]


def create_image(product: Product, data: dict) -> ProductImage:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=product.pk)
        if product.images.count() >= MAX_IMAGES:
            raise Unprocessable(f"Product is not allowed to have more than {MAX_IMAGES} images")
        last = product.images.aggregate(last=Max("position"))["last"] or 0
        position = min(data.get("position", last + 1), last + 1)
        _shift_images(product, position, +1)
        image = ProductImage.objects.create(
            product=product, src=_src(product, data), position=position, alt=data.get("alt", [])
        )
        _touch(product)
    return image


def update_image(image: ProductImage, data: dict) -> ProductImage:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=image.product_id)
        if "position" in data and data["position"] != image.position:
            _shift_images(product, image.position + 1, -1)
            last = product.images.exclude(pk=image.pk).aggregate(last=Max("position"))["last"]
            image.position = min(data["position"], (last or 0) + 1)
            _shift_images(product, image.position, +1, exclude_pk=image.pk)
        if "src" in data or "upload" in data:
            images.forget(product.store_id, [image.src])
            image.src = _src(product, data)
        if "alt" in data:
            image.alt = data["alt"]
        image.save()
        _touch(product)
    return image


def delete_image(image: ProductImage) -> None:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=image.product_id)
        images.forget(product.store_id, [image.src])
        image.delete()
        _shift_images(product, image.position + 1, -1)
        _touch(product)


def _shift_images(product: Product, start: int, step: int, exclude_pk=None) -> None:
    """Move every image at `start` or later by `step` positions (keeps 1..n dense)."""
    product.images.filter(position__gte=start).exclude(pk=exclude_pk).update(
        position=F("position") + step
    )


# --- categories ----------------------------------------------------------------------


def _parent(store: Store, parent_id: int | None, category: Category | None = None):
    if parent_id is None:
        return None
    parent = store.categories.filter(pk=parent_id).first()
    if parent is None:
        raise ValidationError({"parent": [f"Category {parent_id} does not exist"]})
    ancestor = parent
    while category is not None and ancestor is not None:
        if ancestor.pk == category.pk:
            raise ValidationError({"parent": ["A category cannot be its own ancestor"]})
        ancestor = ancestor.parent
    return parent


def create_category(store: Store, data: dict) -> Category:
    with transaction.atomic():
        if store.categories.count() >= MAX_CATEGORIES:
            raise Unprocessable(
                f"Store has reached maximum limit of {MAX_CATEGORIES} allowed categories"
            )
        name = _filled(store, data["name"])
        category = Category.objects.create(
            store=store,
            name=name,
            description=_filled(store, data.get("description")),
            handle=_unique_handles(store, Category, _filled(store, data.get("handle"), base=name)),
            parent=_parent(store, data.get("parent")),
            google_shopping_category=data.get("google_shopping_category") or None,
        )
        events.emit(store.pk, "category/created", category.pk)
    return category


def update_category(category: Category, data: dict) -> Category:
    store = category.store
    with transaction.atomic():
        category = Category.objects.select_for_update().get(pk=category.pk)
        for field in ("name", "description"):
            if field in data:
                setattr(category, field, _filled(store, data[field], base=getattr(category, field)))
        if "handle" in data:
            category.handle = _unique_handles(
                store, Category, _filled(store, data["handle"], base=category.handle), category.pk
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
        category.delete()
        events.emit(store_id, "category/deleted", pk)


# --- scripts -------------------------------------------------------------------------


def create_script(store: Store, app: App, data: dict) -> Script:
    return Script.objects.create(
        store=store,
        app=app,
        src=data["src"],
        event=data["event"],
        where=data.get("where", "store"),
    )


def update_script(script: Script, data: dict) -> Script:
    for field in ("src", "event", "where"):
        if field in data:
            setattr(script, field, data[field])
    script.save()
    return script


def delete_script(script: Script) -> None:
    script.delete()
