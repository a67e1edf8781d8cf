"""A product's images: added by URL or upload, moved, replaced, deleted; positions stay
1..n without gaps. The files of uploads are kept by `storefront.images`."""

from contextlib import contextmanager

from django.db import transaction
from django.db.models import F, Max

from storefront import images as image_files
from storefront.errors import Invalid, Missing
from storefront.models import Product, ProductImage
from storefront.services import catalog
from storefront.services.locks import locked

MAX_IMAGES = 250


def too_many_images() -> Invalid:
    return Invalid(f"Product is not allowed to have more than {MAX_IMAGES} images")


def check_src(store_id: int, src: str) -> None:
    try:
        image_files.check_src(store_id, src)
    except image_files.ForeignUpload as error:
        raise Invalid(fields={"src": [str(error)]}) from error


@contextmanager
def stored_sources(store_id: int, items: list[dict]):
    """Each image's `src`: the URL given, or where its uploaded attachment is now kept. The
    files are stored before the transaction that records them (the storage may be a remote
    bucket: no storage request inside a transaction) and removed again if it fails."""
    stored: list[str] = []
    try:
        sources = []
        for data in items:
            if "upload" in data:
                stored.append(image_files.store(store_id, data["upload"]))
                sources.append(stored[-1])
            elif "src" in data:
                check_src(store_id, data["src"])
                sources.append(data["src"])
            else:
                sources.append(None)
        yield sources
    except BaseException:
        image_files.discard(stored)
        raise


def create_image(product: Product, data: dict) -> ProductImage:
    with stored_sources(product.store_id, [data]) as (src,), transaction.atomic():
        product = locked(Product.objects, product.pk, "Product")
        if product.images.count() >= MAX_IMAGES:
            raise too_many_images()
        last = product.images.aggregate(last=Max("position"))["last"] or 0
        position = min(data.get("position", last + 1), last + 1)
        shift_images(product, position, +1)
        image = ProductImage.objects.create(
            product=product,
            src=src,
            position=position,
            alt=data.get("alt", []),
        )
        catalog.touch(product)
    return image


def update_image(image: ProductImage, data: dict) -> ProductImage:
    # Read here (not image.product): the product may have been deleted since the view
    # read the image.
    found = Product.objects.filter(pk=image.product_id).values_list("store_id", flat=True)
    store_id = found.first()
    if store_id is None:
        raise Missing("Product with such id does not exist")
    with stored_sources(store_id, [data]) as (src,), transaction.atomic():
        product = locked(Product.objects, image.product_id, "Product")
        # As it is now: its position may have moved, and saving the one the view read
        # would insert it again if it was deleted.
        image = locked(product.images, image.pk, "Image")
        if "position" in data and data["position"] != image.position:
            shift_images(product, image.position + 1, -1)
            last = product.images.exclude(pk=image.pk).aggregate(last=Max("position"))["last"]
            image.position = min(data["position"], (last or 0) + 1)
            shift_images(product, image.position, +1, exclude_pk=image.pk)
        if "src" in data or "upload" in data:
            image_files.forget(product.store_id, [image.src])
            image.src = src
        if "alt" in data:
            image.alt = data["alt"]
        image.save()
        catalog.touch(product)
    return image


def delete_image(image: ProductImage) -> None:
    with transaction.atomic():
        product = locked(Product.objects, image.product_id, "Product")
        image = locked(product.images, image.pk, "Image")
        image_files.forget(product.store_id, [image.src])
        image.delete()
        shift_images(product, image.position + 1, -1)
        catalog.touch(product)


def shift_images(product: Product, start: int, step: int, exclude_pk=None) -> None:
    """Move every image at `start` or later by `step` positions (keeps 1..n dense)."""
    product.images.filter(position__gte=start).exclude(pk=exclude_pk).update(
        position=F("position") + step
    )
