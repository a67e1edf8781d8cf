"""Blob bytes: content-addressed in a Django storage, uploads staged until verified.

A blob lives at `blobs/<algorithm>/<first two hex>/<hex>` of the `registry` storage alias:
a FileSystemStorage under `$DATA_DIR/registry` by default, where an upload in progress is
a plain file under `$DATA_DIR/registry-uploads` (this module); or an S3-compatible bucket
(django-storages' S3Storage), where it is staged as objects in the bucket (s3.py). Either
way an upload only becomes visible as a blob once its digest has been verified.
"""

import contextlib
import fcntl
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.utils import timezone

from registry.distribution import digests
from registry.distribution.models import Upload

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


def blob_path(digest: str) -> str:
    algorithm, hexpart = digests.parse(digest)
    return f"blobs/{algorithm}/{hexpart[:2]}/{hexpart}"


def uploads_dir() -> Path:
    path = Path(settings.REGISTRY_UPLOADS_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def upload_path(upload_id) -> Path:
    return uploads_dir() / str(upload_id)


def discard_upload_file(upload_id) -> None:
    """Remove what an upload staged (it is cancelled, completed or its project deleted)."""
    _hashers.forget(str(upload_id))
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

    def prepare(self, digest: str) -> None:
        """Nothing to do ahead: promoting is a rename."""

    def promote(self, digest: str) -> None:
        promote_upload(self.upload_id, digest)


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


class _RunningHashers:
    """The digest of each upload's bytes so far, kept while the same process receives it.

    An entry is only used while the staged file is exactly as this process left it (same
    size, change time and inode): chunks of one upload may reach other processes (or
    arrive after a restart), and then the digest is computed by reading the file again.
    """

    LIMIT = 256

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[tuple, object]] = OrderedDict()

    def take(self, key: str, stamp: tuple, algorithm: str):
        with self._lock:
            entry = self._entries.pop(key, None)
        if entry is not None and entry[0] == stamp and entry[1].name == algorithm:
            return entry[1]
        return None

    def keep(self, key: str, stamp: tuple, hasher) -> None:
        with self._lock:
            self._entries[key] = (stamp, hasher)
            while len(self._entries) > self.LIMIT:
                self._entries.popitem(last=False)

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)


_hashers = _RunningHashers()

# Hashing runs beside the request thread: hashlib releases the GIL on large updates, so
# a chunk is hashed while the next one is received and written (sha256 costs more CPU
# than the rest of an upload together).
_hashing = ThreadPoolExecutor(max_workers=8, thread_name_prefix="blob-hash")


class _OverlappedHasher:
    """Feeds a hasher from the `_hashing` pool, one chunk in flight at a time, in order."""

    def __init__(self, hasher):
        self.hasher = hasher
        self._pending: Future | None = None

    def update(self, chunk: bytes) -> None:
        self.finish()
        self._pending = _hashing.submit(self.hasher.update, chunk)

    def finish(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()


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
    hasher = _hashers.take(key, stamp, algorithm) if stamp[0] == offset else None
    if hasher is None and offset == 0:
        hasher = digests.new_hasher(algorithm)
    overlapped = _OverlappedHasher(hasher) if hasher is not None else None
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
        _hashers.keep(key, _stamp(handle), hasher)
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
    hasher = _hashers.take(str(upload_id), _stamp(handle), algorithm)
    if hasher is None:
        hasher = digests.new_hasher(algorithm)
        handle.seek(0)
        while chunk := handle.read(CHUNK_SIZE):
            hasher.update(chunk)
    return f"{algorithm}:{hasher.hexdigest()}"


class _StagedFile(File):
    """Lets FileSystemStorage move the staged file into place instead of copying it."""

    def temporary_file_path(self):
        return self.file.name


def promote_upload(upload_id, digest: str) -> None:
    """Move the verified staged file to its content address (a rename on one disk)."""
    storage = blob_storage()
    name = blob_path(digest)
    path = upload_path(upload_id)
    if storage.exists(name):
        discard_upload_file(upload_id)
        return
    with open(path, "rb") as handle:
        storage.save(name, _StagedFile(handle, name=name))
    discard_upload_file(upload_id)


def save_bytes(digest: str, data: bytes) -> None:
    from django.core.files.base import ContentFile

    storage = blob_storage()
    name = blob_path(digest)
    if not storage.exists(name):
        storage.save(name, ContentFile(data))


def delete_blob(digest: str) -> None:
    """Remove a blob's bytes (garbage collection; a missing file is no error)."""
    blob_storage().delete(blob_path(digest))


def read_bytes(digest: str, limit: int = -1) -> bytes:
    """The blob's bytes (its first `limit` only, when given)."""
    if limit == 0:
        return b""
    with open_blob(digest, 0, None if limit < 0 else limit) as handle:
        return handle.read(limit)


def blob_size(digest: str) -> int:
    return blob_storage().size(blob_path(digest))


def open_blob(digest: str, start: int = 0, length: int | None = None):
    """The blob opened at `start` (reading `length` bytes at most, on object storage);
    FileNotFoundError when it is not stored."""
    store = object_store()
    if store is not None:
        return store.open_object(blob_path(digest), start, length)
    handle = blob_storage().open(blob_path(digest), "rb")
    if start:
        handle.seek(start)
    return handle


def redirect_url(digest: str) -> str | None:
    """Where a client may fetch the blob itself (REGISTRY_S3_REDIRECT), else None."""
    store = object_store()
    if store is None or not settings.REGISTRY_S3_REDIRECT:
        return None
    return store.presigned_url(blob_path(digest), settings.REGISTRY_S3_REDIRECT_SECONDS)


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
