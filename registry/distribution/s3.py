"""Blob bytes in an S3-compatible bucket: the `registry` storage is django-storages' S3Storage.

Uploads in progress are staged in the bucket under `_uploads/<upload id>/`, one object per
request that added bytes (a segment, written with a multipart upload when it is large),
and the session's state is its database row: the offset, the segments in order, and the
request that holds it. Any process or node can therefore continue or complete a session.

The rules of the filesystem staging hold here too:
- one request at a time per session: a request takes the row's lease (`holder`, renewed
  while it streams) with one conditional UPDATE; a second one is refused at once;
- a segment is recorded only by an UPDATE that still holds the lease at the offset the
  request started from; a body that broke off (or a request that lost its lease) leaves no
  segment, and objects no row names are never read;
- completion checks the stored segments' sizes and the digest of their bytes (the running
  hash of this process when the segments are exactly those it wrote, else read back).

Every request to the service here is made outside database transactions (the house rule:
no HTTP inside a transaction); storage.py says how blob objects stay safe from a racing
garbage collection without that.
"""

import contextlib
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from botocore.exceptions import ClientError
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from registry.distribution import digests, hashing, storage
from registry.distribution.models import Upload

# S3 refuses multipart parts under 5 MiB (but the last): a segment is sent in parts of
# PART_SIZE, one part in flight while the next is received.
MIN_PART_SIZE = 5 * 1024 * 1024
PART_SIZE = 8 * 1024 * 1024

_transfers = ThreadPoolExecutor(max_workers=8, thread_name_prefix="s3-part")


def _lease() -> timedelta:
    """How long a request's hold on a session lasts unless renewed (a third of it)."""
    return timedelta(seconds=settings.REGISTRY_S3_UPLOAD_LEASE_SECONDS)


def _bucket():
    backend = storage.blob_storage()
    return backend.connection.meta.client, backend.bucket_name


def _key(name: str) -> str:
    return storage.blob_storage()._normalize_name(name)


def _missing(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound")


class _Body:
    """An object's streaming body as a file: read(size), close(), a context manager."""

    def __init__(self, body):
        self._body = body

    def read(self, size: int = -1) -> bytes:
        return self._body.read(None if size is None or size < 0 else size)

    def close(self) -> None:
        self._body.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_object(name: str, start: int = 0, length: int | None = None) -> _Body:
    """The object's bytes from `start` (`length` of them at most, at least one), streamed:
    a ranged GET; FileNotFoundError when it is not there."""
    return _open(_key(name), start, length)


def _open(key: str, start: int = 0, length: int | None = None) -> _Body:
    client, bucket = _bucket()
    request = {"Bucket": bucket, "Key": key}
    if start or length is not None:
        end = "" if length is None else str(start + length - 1)
        request["Range"] = f"bytes={start}-{end}"
    try:
        return _Body(client.get_object(**request)["Body"])
    except ClientError as error:
        if _missing(error) or error.response.get("Error", {}).get("Code") == "InvalidRange":
            raise FileNotFoundError(key) from error
        raise


def presigned_url(name: str, seconds: int) -> str:
    client, bucket = _bucket()
    return client.generate_presigned_url(
        "get_object", Params={"Bucket": bucket, "Key": _key(name)}, ExpiresIn=seconds
    )


def _staging(upload_id) -> str:
    return _key(f"_uploads/{upload_id}/")


@contextlib.contextmanager
def hold(upload_id):
    """The session held by this request (storage.hold_upload): its lease taken, or
    UploadBusy while another request's lease runs; FileNotFoundError without a row."""
    token = uuid.uuid4()
    now = timezone.now()
    taken = Upload.objects.filter(
        Q(holder__isnull=True) | Q(held_until__lt=now), id=upload_id
    ).update(holder=token, held_until=now + _lease())
    if not taken:
        if Upload.objects.filter(id=upload_id).exists():
            raise storage.UploadBusy(str(upload_id))
        raise FileNotFoundError(str(upload_id))
    try:
        row = Upload.objects.filter(id=upload_id).values_list("offset", "segments").first()
        if row is None:
            raise FileNotFoundError(str(upload_id))
        yield _ObjectUpload(upload_id, token, *row)
    finally:
        Upload.objects.filter(id=upload_id, holder=token).update(holder=None, held_until=None)


class _ObjectUpload:
    """A held upload staged as objects (the interface of storage._FileUpload)."""

    def __init__(self, upload_id, token, offset: int, segments: list):
        self.upload_id = upload_id
        self.token = token
        self.offset = offset
        self.segments = [tuple(segment) for segment in segments]
        self._renewed = time.monotonic()

    def _stamp(self) -> tuple:
        return tuple(name for name, _ in self.segments)

    def _renew(self) -> None:
        """Keep the lease while a long body streams (checked at every chunk received)."""
        if time.monotonic() - self._renewed < _lease().total_seconds() / 3:
            return
        if not Upload.objects.filter(id=self.upload_id, holder=self.token).update(
            held_until=timezone.now() + _lease()
        ):
            self._lost()
        self._renewed = time.monotonic()

    def _lost(self):
        """The lease went: to another request (its lease lapsed while this one stalled), or
        with the session."""
        if Upload.objects.filter(id=self.upload_id).exists():
            raise storage.UploadBusy(str(self.upload_id))
        raise storage.UploadGone(str(self.upload_id))

    def append(self, stream, length: int | None, algorithm: str) -> int:
        key = str(self.upload_id)
        start = self.offset
        hasher = hashing.running.take(key, self._stamp(), algorithm)
        if hasher is None and start == 0:
            hasher = digests.new_hasher(algorithm)
        name = f"{start:016d}-{uuid.uuid4().hex[:12]}"
        object_key = _staging(self.upload_id) + name
        size = _write(object_key, storage.read_body(stream, length), hasher, self._renew)
        # An empty body adds no segment (nothing was written).
        segments = [*self.segments, (name, size)] if size else self.segments
        # Recorded only while this request still holds the session where it started.
        if not Upload.objects.filter(id=self.upload_id, holder=self.token, offset=start).update(
            offset=start + size,
            segments=[list(segment) for segment in segments],
            update_time=timezone.now(),
            held_until=timezone.now() + _lease(),
        ):
            _delete_keys([object_key])
            self._lost()
        self.segments = segments
        self.offset = start + size
        if hasher is not None:
            hashing.running.keep(key, self._stamp(), hasher)
        return self.offset

    def size(self) -> int:
        """The stored size of the recorded segments; -1 when one is missing or differs."""
        prefix = _staging(self.upload_id)
        stored = _listing(prefix)
        if any(stored.get(prefix + name) != size for name, size in self.segments):
            return -1
        return sum(size for _, size in self.segments)

    def digest(self, algorithm: str) -> str:
        hasher = hashing.running.take(str(self.upload_id), self._stamp(), algorithm)
        if hasher is None:
            hasher = digests.new_hasher(algorithm)
            for name, _ in self.segments:
                with _open(_staging(self.upload_id) + name) as body:
                    while chunk := body.read(storage.CHUNK_SIZE):
                        hasher.update(chunk)
        return f"{algorithm}:{hasher.hexdigest()}"

    def store(self, digest: str) -> str:
        """The verified bytes as a new blob object (copied inside the service when the
        segments allow it); its name. The staging stays until the upload is discarded."""
        name = storage.new_object_name(digest)
        _compose(self.upload_id, self.segments, _key(name), self._renew)
        return name


def _write(key: str, chunks, hasher, renew) -> int:
    """Stream the chunks into one object: a PUT when they fit in one part, else a multipart
    upload, aborted if the body breaks off; no object for no bytes. The hasher (if any)
    sees every byte; `renew` is called at every chunk."""
    client, bucket = _bucket()
    overlapped = hashing.OverlappedHasher(hasher) if hasher is not None else None
    upload_id = None
    parts: list[dict] = []
    in_flight = None
    buffer = bytearray()
    total = 0
    number = 0

    def send(data: bytearray, number: int) -> dict:
        answer = client.upload_part(
            Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=data
        )
        return {"PartNumber": number, "ETag": answer["ETag"]}

    try:
        for chunk in chunks:
            if overlapped is not None:
                overlapped.update(chunk)
            buffer += chunk
            total += len(chunk)
            renew()
            if len(buffer) >= PART_SIZE:
                if upload_id is None:
                    upload_id = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
                if in_flight is not None:
                    parts.append(in_flight.result())
                number += 1
                # Handed over as it is: a new buffer takes the next bytes.
                in_flight = _transfers.submit(send, buffer, number)
                buffer = bytearray()
        if overlapped is not None:
            overlapped.finish()
        if upload_id is None:
            if total:
                client.put_object(Bucket=bucket, Key=key, Body=buffer)
            return total
        if in_flight is not None:
            parts.append(in_flight.result())
            in_flight = None
        if buffer:
            parts.append(send(buffer, number + 1))
        client.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
        )
        return total
    except BaseException:
        if overlapped is not None:
            overlapped.finish()
        if in_flight is not None:
            with contextlib.suppress(Exception):
                in_flight.result()
        if upload_id is not None:
            with contextlib.suppress(Exception):
                client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
        raise


# One CopyObject (or UploadPartCopy) copies at most 5 GiB.
MAX_COPY = 5 * 1024**3


def _compose(upload_id, segments: list, target: str, renew=lambda: None) -> None:
    """The segments' bytes, in order, as the object `target`: copied inside the service when
    every piece but the last can be a multipart part (5 MiB to 5 GiB), else streamed through
    this process in parts (memory holds two parts). `renew` keeps the session's lease."""
    client, bucket = _bucket()
    prefix = _staging(upload_id)
    sources = [(prefix + name, size) for name, size in segments]
    if not sources:
        client.put_object(Bucket=bucket, Key=target, Body=b"")
        return
    if len(sources) == 1 and sources[0][1] <= MAX_COPY:
        client.copy_object(
            Bucket=bucket, Key=target, CopySource={"Bucket": bucket, "Key": sources[0][0]}
        )
        return
    pieces = [
        (key, first, min(first + MAX_COPY, size) - 1)
        for key, size in sources
        for first in range(0, size, MAX_COPY)
    ]
    if any(last - first + 1 < MIN_PART_SIZE for _, first, last in pieces[:-1]):
        _write(target, _segment_chunks(sources), None, renew)
        return
    upload = client.create_multipart_upload(Bucket=bucket, Key=target)["UploadId"]
    try:
        parts = []
        for number, (key, first, last) in enumerate(pieces, start=1):
            answer = client.upload_part_copy(
                Bucket=bucket,
                Key=target,
                UploadId=upload,
                PartNumber=number,
                CopySource={"Bucket": bucket, "Key": key},
                CopySourceRange=f"bytes={first}-{last}",
            )
            parts.append({"PartNumber": number, "ETag": answer["CopyPartResult"]["ETag"]})
            renew()
        client.complete_multipart_upload(
            Bucket=bucket, Key=target, UploadId=upload, MultipartUpload={"Parts": parts}
        )
    except BaseException:
        with contextlib.suppress(Exception):
            client.abort_multipart_upload(Bucket=bucket, Key=target, UploadId=upload)
        raise


def _segment_chunks(sources):
    for key, _ in sources:
        with _open(key) as body:
            while chunk := body.read(storage.CHUNK_SIZE):
                yield chunk


def _listing(prefix: str) -> dict[str, int]:
    """Key -> size of the objects under `prefix`."""
    client, bucket = _bucket()
    found = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", ()):
            found[item["Key"]] = item["Size"]
    return found


def _delete_keys(keys) -> None:
    client, bucket = _bucket()
    keys = list(keys)
    for first in range(0, len(keys), 1000):
        client.delete_objects(
            Bucket=bucket,
            Delete={"Objects": [{"Key": key} for key in keys[first : first + 1000]], "Quiet": True},
        )


def _abort_multipart(prefix: str, started_before=None) -> None:
    """Multipart uploads under `prefix` left by requests that died (their parts are stored
    and billed until aborted)."""
    client, bucket = _bucket()
    for page in client.get_paginator("list_multipart_uploads").paginate(
        Bucket=bucket, Prefix=prefix
    ):
        for item in page.get("Uploads", ()):
            if started_before is None or item["Initiated"] < started_before:
                with contextlib.suppress(ClientError):
                    client.abort_multipart_upload(
                        Bucket=bucket, Key=item["Key"], UploadId=item["UploadId"]
                    )


def delete_objects(names) -> None:
    _delete_keys(_key(name) for name in names)


def blob_objects():
    """Name and last change (a POSIX timestamp) of every object under `blobs/`."""
    client, bucket = _bucket()
    root = _key("blobs/")
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=root):
        for item in page.get("Contents", ()):
            yield "blobs/" + item["Key"][len(root) :], item["LastModified"].timestamp()


def abort_unfinished_writes(cutoff) -> None:
    _abort_multipart(_key("blobs/"), started_before=cutoff)


def discard(upload_id) -> None:
    """Every object and unfinished multipart upload under the session's prefix."""
    prefix = _staging(upload_id)
    _delete_keys(_listing(prefix))
    _abort_multipart(prefix)


def purge_orphans(known: set[str], cutoff) -> None:
    """Staging of sessions that no row names any more (a request died between removing
    the row and the objects), and multipart uploads older than `cutoff`."""
    client, bucket = _bucket()
    root = _key("_uploads/")
    doomed = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=root):
        for item in page.get("Contents", ()):
            session = item["Key"][len(root) :].split("/", 1)[0]
            if session not in known and item["LastModified"] < cutoff:
                doomed.append(item["Key"])
    _delete_keys(doomed)
    _abort_multipart(root, started_before=cutoff)
