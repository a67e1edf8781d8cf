"""Blob bytes: objects in a Django storage named by their blob row, uploads staged until
verified.

A blob's bytes are the object its row names (`Blob.object_name`) in the `registry` storage
alias: a FileSystemStorage under `$DATA_DIR/registry` by default, where an upload in
progress is a plain file under `$DATA_DIR/registry-uploads` (this module); or an
S3-compatible bucket (django-storages' S3Storage), where it is staged as objects in the
bucket (s3.py). Either way an upload only becomes visible as a blob once its digest has
been verified.

Object names carry a generation (`blobs/<alg>/<ab>/<hex>-<random>`), so that no request
to the storage is ever made inside a database transaction (the house rule; on S3 each is
an HTTP request) and still a racing garbage collection never deletes bytes a row relies on:
- bytes are written to a new name first, outside any transaction; a short transaction
  then creates the row naming them (or, when the digest already has a row, keeps that
  row's object and the new one is deleted after the commit);
- garbage collection deletes a row first and its object after that commit, by the name
  the row recorded; a push that finds no row writes a new name, never a doomed one;
- an object no row names (a process died between writing and recording, or between
  deleting a row and its object) is removed by garbage collection once it is older than
  REGISTRY_ORPHAN_GRACE_MINUTES (`registry.gc.services.purge_orphan_objects`).
"""

import contextlib
import fcntl
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone

from registry.distribution import digests, hashing
from registry.distribution.models import Blob, Upload

CHUNK_SIZE = 1024 * 1024


def blob_storage():
    return storages["registry"]


def object_store():
    """The s3 module when the `registry` storage is an S3 bucket, else None (a filesystem)."""
    if any(
        kind.__name__ == "S3Storage" and kind.__module__ == "storages.backends.s3"
        for kind in type(blob_storage()).__mro__
    ):
        from registry.distribution import s3

        return s3
    return None


def new_object_name(digest: str) -> str:
    """A name for the digest's bytes that no object has had (module docstring)."""
    algorithm, hexpart = digests.parse(digest)
    return f"blobs/{algorithm}/{hexpart[:2]}/{hexpart}-{uuid.uuid4().hex[:16]}"


def uploads_dir() -> Path:
    path = Path(settings.REGISTRY_UPLOADS_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def upload_path(upload_id) -> Path:
    return uploads_dir() / str(upload_id)


def discard_upload_file(upload_id) -> None:
    """Remove what an upload staged (it is cancelled, completed or its project deleted)."""
    hashing.running.forget(str(upload_id))
    store = object_store()
    if store is not None:
        store.discard(upload_id)
        return
    with contextlib.suppress(FileNotFoundError):
        os.unlink(upload_path(upload_id))


def start_upload(upload_id) -> None:
    if object_store() is None:
        upload_path(upload_id).touch()


def upload_staged(upload_id) -> bool:
    """Whether the session has its staging (the row alone is the state on object storage)."""
    return object_store() is not None or upload_path(upload_id).exists()


def purge_orphans(known: set[str], cutoff) -> None:
    """Staged bytes that no upload session owns any more, untouched since `cutoff`."""
    store = object_store()
    if store is not None:
        store.purge_orphans(known, cutoff)
        return
    for path in uploads_dir().iterdir():
        if path.name not in known and path.stat().st_mtime < cutoff.timestamp():
            path.unlink(missing_ok=True)


class UploadBusy(Exception):
    """Another request is writing to (or completing) the same upload."""


class UploadGone(Exception):
    """The upload session was cancelled (or completed) while a request wrote to it."""


@contextlib.contextmanager
def hold_upload(upload_id):
    """The upload held by this request alone, at its recorded offset (staged bytes past it,
    left by a request that died, are cut): see `_FileUpload` for what it offers.

    UploadBusy when another request holds it; FileNotFoundError when it has no staging or
    no row any more.
    """
    store = object_store()
    if store is not None:
        with store.hold(upload_id) as held:
            yield held
        return
    with locked_upload(upload_id) as handle:
        offset = Upload.objects.filter(id=upload_id).values_list("offset", flat=True).first()
        if offset is None:
            raise FileNotFoundError(str(upload_id))
        if staged_size(handle) > offset:
            # Bytes past the recorded offset belong to no completed request.
            handle.truncate(offset)
        yield _FileUpload(upload_id, handle, offset)


class _FileUpload:
    """A held upload staged in a local file (`hold_upload`)."""

    def __init__(self, upload_id, handle, offset: int):
        self.upload_id = upload_id
        self.handle = handle
        self.offset = offset

    def append(self, stream, length: int | None, algorithm: str) -> int:
        """Receive a body at the offset and record the new one; ConnectionError when the
        body breaks off and UploadGone when the session went meanwhile (nothing kept)."""
        start = self.offset
        end = append_to_upload(self.handle, self.upload_id, start, stream, length, algorithm)
        if not Upload.objects.filter(id=self.upload_id).update(
            offset=end, update_time=timezone.now()
        ):
            self.handle.truncate(start)
            raise UploadGone(str(self.upload_id))
        self.offset = end
        return end

    def size(self) -> int:
        return staged_size(self.handle)

    def digest(self, algorithm: str) -> str:
        return upload_digest(self.handle, self.upload_id, algorithm)

    def store(self, digest: str) -> str:
        """The verified bytes as a new blob object (a hard link on one disk, else a copy);
        its name. Local file operations, never a network call: the staging stays until
        the upload is discarded, so a refused completion leaves the session as it was."""
        name = new_object_name(digest)
        target = Path(blob_storage().path(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(upload_path(self.upload_id), target)
        except OSError:
            # Staging and blobs on different filesystems.
            partial = target.with_name(target.name + ".partial")
            shutil.copyfile(upload_path(self.upload_id), partial)
            os.replace(partial, target)
        # An orphan's grace period counts from now, not from the staged file's last write.
        os.utime(target)
        return name


@contextlib.contextmanager
def locked_upload(upload_id):
    """The staged file opened for update and held exclusively (an advisory lock).

    Every request that changes an upload holds it: one at a time per session, across
    threads and processes; a second one is refused (UploadBusy) rather than kept waiting.
    FileNotFoundError when the session has no staged file.
    """
    with open(upload_path(upload_id), "r+b", buffering=0) as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise UploadBusy(str(upload_id)) from exc
        yield handle


def _stamp(handle) -> tuple:
    """What identifies the staged file's state: size, last change and inode."""
    status = os.fstat(handle.fileno())
    return (status.st_size, status.st_mtime_ns, status.st_ino)


def append_to_upload(
    handle, upload_id, offset: int, stream, length: int | None, algorithm: str = "sha256"
) -> int:
    """Append the request body (`length` bytes, or to the end when None) at `offset`.

    `handle` is the staged file held by `locked_upload`. Returns the new size. The bytes
    are hashed on the way in, so completing the upload needs no second read. Whatever
    happens, the file ends at `offset` or at the returned size: bytes past the recorded
    offset (left by a request that died) are cut first, and the file is cut back to
    `offset` if the body breaks off, so the session is exactly as before a failed chunk.
    """
    key = str(upload_id)
    stamp = _stamp(handle)
    hasher = hashing.running.take(key, stamp, algorithm) if stamp[0] == offset else None
    if hasher is None and offset == 0:
        hasher = digests.new_hasher(algorithm)
    overlapped = hashing.OverlappedHasher(hasher) if hasher is not None else None
    written = 0
    handle.truncate(offset)
    handle.seek(offset)
    try:
        for chunk in read_body(stream, length):
            if overlapped is not None:
                overlapped.update(chunk)
            _write_all(handle, chunk)
            written += len(chunk)
        if overlapped is not None:
            overlapped.finish()
    except BaseException:
        if overlapped is not None:
            overlapped.finish()
        handle.truncate(offset)
        raise
    if hasher is not None:
        hashing.running.keep(key, _stamp(handle), hasher)
    return offset + written


def _write_all(handle, chunk: bytes) -> None:
    # A raw file's write() may be partial.
    view = memoryview(chunk)
    while view:
        view = view[handle.write(view) :]


def read_body(stream, length: int | None, limit: int | None = None) -> Iterator[bytes]:
    """The body in chunks: `length` bytes, or to its end when None; never past `limit`."""
    bounded = limit is not None and (length is None or length > limit)
    remaining = limit if bounded else length
    while remaining is None or remaining > 0:
        size = CHUNK_SIZE if remaining is None else min(CHUNK_SIZE, remaining)
        try:
            chunk = stream.read(size)
        except OSError as exc:
            # The client went away mid-body (the server's own read error types vary).
            raise ConnectionError("request body broke off") from exc
        if not chunk:
            break
        if remaining is not None:
            remaining -= len(chunk)
        yield chunk
    if remaining and not bounded:
        raise ConnectionError("request body ended before its Content-Length")


def staged_size(handle) -> int:
    return _stamp(handle)[0]


def upload_digest(handle, upload_id, algorithm: str) -> str:
    """Digest of the staged file's bytes, from the running hash while it is still exact."""
    hasher = hashing.running.take(str(upload_id), _stamp(handle), algorithm)
    if hasher is None:
        hasher = digests.new_hasher(algorithm)
        handle.seek(0)
        while chunk := handle.read(CHUNK_SIZE):
            hasher.update(chunk)
    return f"{algorithm}:{hasher.hexdigest()}"


def save_bytes(digest: str, data: bytes) -> str:
    """The bytes as a new blob object (a manifest's); its name."""
    return blob_storage().save(new_object_name(digest), ContentFile(data))


def object_exists(name: str) -> bool:
    return blob_storage().exists(name)


def delete_objects(names) -> None:
    """Remove blob objects (a missing one is no error). Called after the commit that
    removed or never made the rows naming them, never inside a transaction."""
    names = list(names)
    store = object_store()
    if store is not None:
        store.delete_objects(names)
        return
    for name in names:
        blob_storage().delete(name)


def blob_objects() -> Iterator[tuple[str, float]]:
    """Every object under `blobs/`: its name and last change (a POSIX timestamp)."""
    store = object_store()
    if store is not None:
        yield from store.blob_objects()
        return
    root = Path(blob_storage().path("blobs"))
    for folder, _, files in os.walk(root):
        for file in files:
            path = Path(folder) / file
            with contextlib.suppress(FileNotFoundError):
                yield path.relative_to(root.parent).as_posix(), path.stat().st_mtime


def abort_unfinished_writes(cutoff) -> None:
    """Multipart uploads of blob objects left by requests that died (object storage)."""
    store = object_store()
    if store is not None:
        store.abort_unfinished_writes(cutoff)


def read_bytes(digest: str, limit: int = -1) -> bytes:
    """The bytes of the digest's blob (its first `limit` only, when given);
    FileNotFoundError when it has no row or no object."""
    name = Blob.objects.filter(digest=digest).values_list("object_name", flat=True).first()
    if name is None:
        raise FileNotFoundError(digest)
    if limit == 0:
        return b""
    with open_blob(name, 0, None if limit < 0 else limit) as handle:
        return handle.read(limit)


def open_blob(name: str, start: int = 0, length: int | None = None):
    """The blob object opened at `start` (reading `length` bytes at most, on object
    storage); FileNotFoundError when it is not stored."""
    store = object_store()
    if store is not None:
        return store.open_object(name, start, length)
    handle = blob_storage().open(name, "rb")
    if start:
        handle.seek(start)
    return handle


def redirect_url(name: str) -> str | None:
    """Where a client may fetch the blob object itself (REGISTRY_S3_REDIRECT), else None."""
    store = object_store()
    if store is None or not settings.REGISTRY_S3_REDIRECT:
        return None
    return store.presigned_url(name, settings.REGISTRY_S3_REDIRECT_SECONDS)


def iter_range(handle, length: int) -> Iterator[bytes]:
    """`length` bytes of a blob opened where they start, closing it at the end."""
    try:
        remaining = length
        while remaining > 0:
            chunk = handle.read(min(CHUNK_SIZE, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            yield chunk
    finally:
        handle.close()
