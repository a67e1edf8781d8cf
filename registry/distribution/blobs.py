"""Blob uploads and blob links: the business rules behind the `/v2/<name>/blobs/` routes."""

import re
import uuid

from django.db import IntegrityError, transaction
from django.utils import timezone

from registry.distribution import digests, storage
from registry.distribution.errors import (
    BlobUnknown,
    BlobUploadUnknown,
    DigestInvalid,
    RangeInvalid,
    SizeInvalid,
)
from registry.distribution.models import Blob, RepositoryBlob, Upload

CONTENT_RANGE = re.compile(r"^(?:bytes[ =])?(\d+)-(\d+)(?:/(?:\d+|\*))?$")


def linked_blob(repository_name: str, digest: str) -> Blob:
    digests.parse(digest)
    blob = Blob.objects.filter(digest=digest, links__repository_name=repository_name).first()
    if blob is None:
        raise BlobUnknown(detail={"digest": digest})
    return blob


def touch(digest: str, size: int) -> Blob:
    """The blob's row, created or with its update_time renewed, committed before a push
    relies on the blob's file: garbage collection re-reads it under the row's lock and
    keeps a blob touched within its window. (When a sweep holds the lock, the UPDATE waits
    for it and then finds no row: the blob is created afresh and its bytes written again.)
    """
    now = timezone.now()
    if not Blob.objects.filter(digest=digest).update(update_time=now):
        try:
            with transaction.atomic():
                Blob.objects.create(digest=digest, size=size, update_time=now)
        except IntegrityError:
            # A concurrent push created it first.
            Blob.objects.filter(digest=digest).update(update_time=now)
    return Blob.objects.get(digest=digest)


def link(repository_name: str, blob: Blob) -> None:
    try:
        with transaction.atomic():
            RepositoryBlob.objects.get_or_create(repository_name=repository_name, blob=blob)
    except IntegrityError:
        # A concurrent push linked it first.
        pass


def unlink(repository_name: str, digest: str) -> None:
    blob = linked_blob(repository_name, digest)
    RepositoryBlob.objects.filter(repository_name=repository_name, blob=blob).delete()


def mountable(source_name: str, digest: str) -> Blob | None:
    """The blob to mount from `source_name`; None (start an upload instead) when absent."""
    try:
        blob = linked_blob(source_name, digest)
    except (BlobUnknown, DigestInvalid):
        return None
    # Touched before it is linked: a blob garbage collection removed meanwhile is uploaded.
    if not Blob.objects.filter(pk=blob.pk).update(update_time=timezone.now()):
        return None
    return blob


def start_upload(repository_name: str) -> Upload:
    upload = Upload.objects.create(repository_name=repository_name)
    storage.upload_path(upload.id).touch()
    return upload


def get_upload(repository_name: str, upload_id: str) -> Upload:
    try:
        key = uuid.UUID(upload_id)
    except ValueError as exc:
        raise BlobUploadUnknown(detail={"uuid": upload_id}) from exc
    upload = Upload.objects.filter(id=key, repository_name=repository_name).first()
    if upload is None or not storage.upload_path(upload.id).exists():
        raise BlobUploadUnknown(detail={"uuid": upload_id})
    return upload


def receive_chunk(upload: Upload, stream, length: int | None, content_range: str) -> Upload:
    """Append one PATCH body; it must continue the upload exactly where it stands."""
    if content_range:
        match = CONTENT_RANGE.match(content_range.strip())
        if not match:
            raise RangeInvalid("invalid content range", detail={"Content-Range": content_range})
        start, end = int(match.group(1)), int(match.group(2))
        if start != upload.offset or end < start:
            raise RangeInvalid(
                f"chunk starts at {start} but the upload is at {upload.offset}",
                headers=upload_headers(upload),
            )
        if length is not None and end - start + 1 != length:
            raise RangeInvalid("Content-Range does not match Content-Length")
    _append(upload, stream, length)
    return upload


def _append(upload: Upload, stream, length: int | None, algorithm: str = "sha256") -> None:
    start = upload.offset
    try:
        new_offset = storage.append_to_upload(upload.id, start, stream, length, algorithm)
    except ConnectionError as exc:
        raise SizeInvalid("request body shorter than its Content-Length") from exc
    # Only the request that started from the recorded offset may move it on.
    updated = Upload.objects.filter(id=upload.id, offset=start).update(offset=new_offset)
    if not updated:
        raise RangeInvalid("the upload was changed by another request")
    upload.offset = new_offset


def verify_upload(upload: Upload, digest: str, stream=None, length: int | None = None) -> int:
    """Take the last bytes (if any) and check the digest; returns the blob's size.

    A mismatch cancels the upload: nothing of it becomes visible.
    """
    algorithm, _ = digests.parse(digest)
    if stream is not None and length != 0:
        _append(upload, stream, length, algorithm)
    actual = storage.upload_digest(upload.id, upload.offset, algorithm)
    if actual != digest:
        cancel_upload(upload)
        raise DigestInvalid(detail={"digest": digest})
    return upload.offset


def complete_upload(upload: Upload, digest: str) -> Blob:
    """Move verified bytes to their content address and make the blob visible in the repo."""
    # The row first: once touched, garbage collection keeps the file promote_upload finds.
    blob = touch(digest, upload.offset)
    storage.promote_upload(upload.id, digest)
    link(upload.repository_name, blob)
    upload.delete()
    return blob


def cancel_upload(upload: Upload) -> None:
    storage.discard_upload_file(upload.id)
    upload.delete()


def upload_headers(upload: Upload) -> dict:
    return {
        "Location": f"/v2/{upload.repository_name}/blobs/uploads/{upload.id}",
        "Range": f"0-{max(upload.offset - 1, 0)}",
        "Docker-Upload-UUID": str(upload.id),
    }


def purge_abandoned_uploads(older_than) -> int:
    """Cancel uploads untouched for `older_than`, and staged files no session owns."""
    cutoff = timezone.now() - older_than
    stale = list(Upload.objects.filter(update_time__lt=cutoff))
    for upload in stale:
        cancel_upload(upload)
    known = {str(key) for key in Upload.objects.values_list("id", flat=True)}
    for path in storage.uploads_dir().iterdir():
        if path.name not in known and path.stat().st_mtime < cutoff.timestamp():
            path.unlink(missing_ok=True)
    return len(stale)
