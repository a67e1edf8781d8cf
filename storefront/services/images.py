"""A product's images: added by URL or upload, moved, replaced, deleted; positions stay
1..n without gaps. The files of uploads are kept by `storefront.images`."""

from django.db import transaction
from django.db.models import F, Max

from storefront import images as image_files
from storefront.errors import Invalid
from storefront.models import Product, ProductImage
from storefront.services import catalog

MAX_IMAGES = 250


def too_many_images() -> Invalid:
    return Invalid(f"Product is not allowed to have more than {MAX_IMAGES} images")


def image_src(product: Product, data: dict) -> str:
    """The image's URL: as given, or where its uploaded attachment is now kept."""
    if "upload" in data:
        return image_files.store(product.store_id, product.pk, data["upload"])
    try:
        image_files.check_src(product.store_id, data["src"])
    except image_files.ForeignUpload as error:
        raise Invalid(fields={"src": [str(error)]}) from error
    return data["src"]


def create_image(product: Product, data: dict) -> ProductImage:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=product.pk)
        if product.images.count() >= MAX_IMAGES:
            raise too_many_images()
        last = product.images.aggregate(last=Max("position"))["last"] or 0
        position = min(data.get("position", last + 1), last + 1)
        shift_images(product, position, +1)
        image = ProductImage.objects.create(
            product=product,
            src=image_src(product, data),
            position=position,
            alt=data.get("alt", []),
        )
        catalog.touch(product)
    return image


def update_image(image: ProductImage, data: dict) -> ProductImage:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=image.product_id)
        if "position" in data and data["position"] != image.position:
            shift_images(product, image.position + 1, -1)
            last = product.images.exclude(pk=image.pk).aggregate(last=Max("position"))["last"]
            image.position = min(data["position"], (last or 0) + 1)
            shift_images(product, image.position, +1, exclude_pk=image.pk)
        if "src" in data or "upload" in data:
            image_files.forget(product.store_id, [image.src])
            image.src = image_src(product, data)
        if "alt" in data:
            image.alt = data["alt"]
        image.save()
        catalog.touch(product)
    return image


def delete_image(image: ProductImage) -> None:
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=image.product_id)
        image_files.forget(product.store_id, [image.src])
        image.delete()
        shift_images(product, image.position + 1, -1)
        catalog.touch(product)


def shift_images(product: Product, start: int, step: int, exclude_pk=None) -> None:
    """Move every image at `start` or later by `step` positions (keeps 1..n dense)."""
    product.images.filter(position__gte=start).exclude(pk=exclude_pk).update(
        position=F("position") + step
    )
