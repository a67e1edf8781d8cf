"""Products: created with their variants, images and categories, changed, deleted.

Functions take validated plain data (see `storefront.api.serializers`), run in one
transaction, and announce product events once committed. Rule violations raise
`storefront.errors.Invalid`.
"""

from django.db import transaction

from storefront import images as image_files
from storefront.errors import Invalid
from storefront.models import Product, ProductImage, Store, Variant
from storefront.services import catalog, categories, events, images, variants
from storefront.services.locks import locked

MAX_PRODUCTS = 100_000

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


def create_product(store: Store, data: dict) -> Product:
    attributes = [catalog.filled(store, value) for value in data.get("attributes", [])]
    new_variants = data.get("variants") or [{}]
    new_images = data.get("images", [])
    if len(new_images) > images.MAX_IMAGES:
        raise images.too_many_images()
    with (
        categories.linking(store, data.get("categories", []), "categories"),
        images.stored_sources(store.pk, new_images) as sources,
        transaction.atomic(),
    ):
        catalog.lock_store(store)
        if Product.objects.filter(store=store).count() >= MAX_PRODUCTS:
            raise Invalid(f"Store has reached maximum limit of {MAX_PRODUCTS} allowed products")
        if len(new_variants) > variants.MAX_VARIANTS:
            raise Invalid(
                f"Product is not allowed to have more than {variants.MAX_VARIANTS} variants"
            )
        chosen = categories.of_store(store, data.get("categories", []))
        name = catalog.filled(store, data["name"])
        product = Product(
            store=store,
            name=name,
            description=catalog.filled(store, data.get("description")),
            attributes=attributes,
            seo_title=data.get("seo_title") or name[store.main_language][:70],
        )
        for field in PRODUCT_FLAGS:
            if field in data and field != "seo_title":
                setattr(product, field, data[field])
        product.handle = catalog.unique_handles(
            store, Product, catalog.filled(store, data.get("handle"), base=name)
        )
        product.save()
        for position, (image, src) in enumerate(_in_position_order(new_images, sources), 1):
            ProductImage.objects.create(
                product=product, src=src, position=position, alt=image.get("alt", [])
            )
        seen: list[list] = []
        for position, variant in enumerate(new_variants, start=1):
            variants.check_variant(product, variant, seen)
            variants.save_variant(Variant(product=product, position=position), variant, store)
        product.categories.set(chosen)
        events.emit(store.pk, "product/created", product.pk)
    return product


def _in_position_order(new_images: list[dict], sources: list) -> list[tuple[dict, str]]:
    """The images in the order that POSTing each to /images in turn gives them: a position
    past the end is the end, an earlier one moves the others down (positions stay 1..n,
    as the image endpoints keep them)."""
    ordered: list[tuple[dict, str]] = []
    for image, src in zip(new_images, sources, strict=True):
        at = min(image.get("position", len(ordered) + 1), len(ordered) + 1)
        ordered.insert(at - 1, (image, src))
    return ordered


def update_product(product: Product, data: dict) -> Product:
    store = product.store
    with categories.linking(store, data.get("categories", []), "categories"), transaction.atomic():
        if "handle" in data or "categories" in data:
            # The store's row first, as category writes take it (they then lock their
            # products through the revision trigger): a product locked before the store
            # for its handles, or holding its category links against a category's
            # delete, deadlocked with them.
            catalog.lock_store(store)
        product = locked(Product.objects.select_related("store"), product.pk, "Product")
        for field in ("name", "description"):
            if field in data:
                setattr(
                    product, field, catalog.filled(store, data[field], base=getattr(product, field))
                )
        if "handle" in data:
            product.handle = catalog.unique_handles(
                store,
                Product,
                catalog.filled(store, data["handle"], base=product.handle),
                product.pk,
            )
        if "attributes" in data:
            attributes = [catalog.filled(store, value) for value in data["attributes"]]
            lengths = {len(values) for values in product.variants.values_list("values", flat=True)}
            if lengths - {len(attributes)}:
                raise Invalid(
                    fields={"attributes": ["must have as many entries as each variant's values"]}
                )
            product.attributes = attributes
        for field in PRODUCT_FLAGS:
            if field in data:
                setattr(product, field, data[field])
        product.save()
        if "categories" in data:
            product.categories.set(categories.of_store(store, data["categories"]))
        events.emit(store.pk, "product/updated", product.pk)
    return product


def delete_product(product: Product) -> None:
    store_id, pk = product.store_id, product.pk
    with transaction.atomic():
        # Its category links go too: the store first, as category writes (update_product).
        catalog.lock_store(product.store)
        # A second DELETE racing the first: 404 and one product/deleted, not two.
        product = locked(Product.objects, pk, "Product")
        image_files.forget(store_id, list(product.images.values_list("src", flat=True)))
        product.delete()
        events.emit(store_id, "product/deleted", pk)
