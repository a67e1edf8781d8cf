"""Product images uploaded as base64 `attachment` (with a `filename`), as Tiendanube
accepts them: decoded and checked here (gif, jpg or png, under 10 MB), kept in Django's
default storage under `storefront/`, and served at `/media/storefront/...`, which becomes
the image's `src`.

An image owns a file only when its own store uploaded it: a `src` naming another store's
upload is refused, and a file is removed only once no image of its store refers to it.
"""

import base64
import binascii
import mimetypes
import re
import secrets
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.http import FileResponse, Http404
from django.utils.text import slugify

from storefront.models import ProductImage

MAX_BYTES = 10 * 1024 * 1024
URL_PREFIX = "/media/storefront/"
# What the first bytes of each accepted format are.
SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "png",
    b"\xff\xd8\xff": "jpg",
    b"GIF87a": "gif",
    b"GIF89a": "gif",
}


# The storage name an upload gets from `store`: store/products/random-stem.kind (the
# storage may append `_xxxxxxx` to the stem); uploads kept before names lost their product
# folder (store/products/product/...) stay ours. Nothing else under the prefix is.
UPLOAD_NAME = re.compile(
    r"(?P<store>[0-9]+)/products/(?:[0-9]+/)?[0-9a-f]{16}-[A-Za-z0-9_-]+\.(?:png|jpg|gif)"
)


class InvalidAttachment(ValueError):
    pass


class ForeignUpload(ValueError):
    """A `src` on this server's image URL that is not an upload of the image's store."""


@dataclass(frozen=True)
class Upload:
    content: bytes
    name: str  # safe file name with the detected format's extension


def decode(attachment: str, filename: str = "") -> Upload:
    """The image in a base64 attachment (a `data:` URI prefix is tolerated)."""
    text = attachment.split(",", 1)[1] if attachment.startswith("data:") else attachment
    text = "".join(text.split())
    if len(text) > (MAX_BYTES // 3 + 1) * 4:
        raise InvalidAttachment("The image must be smaller than 10 MB")
    try:
        content = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        raise InvalidAttachment("The attachment must be a base64 encoded image") from error
    if len(content) >= MAX_BYTES:
        raise InvalidAttachment("The image must be smaller than 10 MB")
    kind = next((kind for magic, kind in SIGNATURES.items() if content.startswith(magic)), None)
    if kind is None:
        raise InvalidAttachment("The image must be a gif, jpg or png")
    stem = slugify(PurePosixPath(filename.replace("\\", "/")).stem)[:80] or "image"
    return Upload(content, f"{stem}.{kind}")


def store(store_id: int, upload: Upload) -> str:
    """Save the image; its absolute URL (the image's `src`). Called before the transaction
    that records the image (the storage may be a remote bucket), hence no product id in the
    name: the product may not exist yet."""
    # A random part keeps names unguessable and distinct for equal filenames.
    name = f"{store_id}/products/{secrets.token_hex(8)}-{upload.name}"
    saved = default_storage.save(f"storefront/{name}", ContentFile(upload.content))
    return f"{settings.EXTERNAL_URL}{URL_PREFIX}{saved.removeprefix('storefront/')}"


def _upload_name(src: str) -> tuple[int, str] | None:
    """(store id, storage name) of the upload `src` points at, or None for any other URL."""
    prefix = f"{settings.EXTERNAL_URL}{URL_PREFIX}"
    if not src.startswith(prefix):
        return None
    found = UPLOAD_NAME.fullmatch(src.removeprefix(prefix))
    return (int(found["store"]), f"storefront/{found[0]}") if found else None


def check_src(store_id: int, src: str) -> None:
    """Refuse (ForeignUpload) a `src` under the upload URL that this store did not upload:
    it would make the image an owner of another store's file, deleted with the image."""
    if src.startswith(f"{settings.EXTERNAL_URL}{URL_PREFIX}"):
        owned = _upload_name(src)
        if owned is None or owned[0] != store_id:
            raise ForeignUpload("must be an image uploaded to this store or an external url")


def forget(store_id: int, sources) -> None:
    """Once the transaction commits, remove the files this store uploaded behind `sources`
    that no image of the store refers to any more (other URLs are not ours)."""
    owned = {
        src: found[1]
        for src in sources
        if (found := _upload_name(src)) is not None and found[0] == store_id
    }

    def remove():
        kept = set(
            ProductImage.objects.filter(
                product__store_id=store_id, src__in=list(owned)
            ).values_list("src", flat=True)
        )
        for src, name in owned.items():
            if src not in kept:
                default_storage.delete(name)

    if owned:
        transaction.on_commit(remove)


def discard(sources) -> None:
    """Remove the files just stored for `sources` (by `store`) whose recording failed."""
    for src in sources:
        found = _upload_name(src)
        if found is not None:
            default_storage.delete(found[1])


def serve(request, name: str):
    """GET of an uploaded image (public, like Tiendanube's CDN)."""
    path = f"storefront/{name}"
    try:
        found = default_storage.exists(path)
    except SuspiciousFileOperation:
        found = False
    if not found or PurePosixPath(name).suffix not in (".png", ".jpg", ".gif"):
        raise Http404("No such image")
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    response = FileResponse(default_storage.open(path, "rb"), content_type=content_type)
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    response["X-Content-Type-Options"] = "nosniff"
    return response
