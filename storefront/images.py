"""Product images uploaded as base64 `attachment` (with a `filename`), as Tiendanube
accepts them: decoded and checked here (gif, jpg or png, under 10 MB), kept in Django's
default storage under `storefront/`, and served at `/media/storefront/...`, which becomes
the image's `src`.
"""

import base64
import binascii
import mimetypes
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

MAX_BYTES = 10 * 1024 * 1024
URL_PREFIX = "/media/storefront/"
# What the first bytes of each accepted format are.
SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "png",
    b"\xff\xd8\xff": "jpg",
    b"GIF87a": "gif",
    b"GIF89a": "gif",
}


class InvalidAttachment(ValueError):
    pass


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


def store(store_id: int, product_id: int, upload: Upload) -> str:
    """Save the image; its absolute URL (the image's `src`)."""
    # A random part keeps names unguessable and distinct for equal filenames.
    name = f"{store_id}/products/{product_id}/{secrets.token_hex(8)}-{upload.name}"
    saved = default_storage.save(f"storefront/{name}", ContentFile(upload.content))
    return f"{settings.EXTERNAL_URL}{URL_PREFIX}{saved.removeprefix('storefront/')}"


def forget(sources) -> None:
    """Once the transaction commits, remove the files behind uploaded images' URLs
    (other URLs are not ours)."""
    prefix = f"{settings.EXTERNAL_URL}{URL_PREFIX}"
    names = [f"storefront/{src.removeprefix(prefix)}" for src in sources if src.startswith(prefix)]
    if names:
        transaction.on_commit(lambda: [default_storage.delete(name) for name in names])


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
