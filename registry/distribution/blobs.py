"""Blob uploads and blob links: the business rules behind the `/v2/<name>/blobs/` routes."""

import contextlib
import re
import uuid

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from registry.distribution import auth, digests, storage
from registry.distribution.errors import (
    BlobUnknown,
    BlobUploadUnknown,
    Denied,
    DigestInvalid,
    NameUnknown,
    RangeInvalid,
    SizeInvalid,
)
from registry.distribution.models import Blob, RepositoryBlob, Upload
from registry.errors import NotFound, QuotaExceeded
from registry.services import quota

# ASCII digits, as Go's ParseInt reads them; 19 at most (int64's width): a longer number
# is an invalid range, not a number for int() (which refuses 4300 digits: a 500).
CONTENT_RANGE = re.compile(r"^(?:bytes[ =])?([0-9]{1,19})-([0-9]{1,19})(?:/(?:[0-9]+|\*))?$")


def linked_blob(repository_name: str, digest: str) -> Blob:
    """The blob if the repository holds it (every blob HEAD and GET: one indexed query,
    no ORM compilation)."""
    digests.parse(digest)
    with connection.cursor() as cursor:
        cursor.execute(LINKED_BLOB, [digest, repository_name])
        row = cursor.fetchone()
    if row is None:
        raise BlobUnknown(detail={"digest": digest})
    return Blob(id=row[0], digest=digest, size=row[1], object_name=row[2])


LINKED_BLOB = (
    f"SELECT b.id, b.size, b.object_name FROM {Blob._meta.db_table} b"
    f" JOIN {RepositoryBlob._meta.db_table} l ON l.blob_id = b.id"
    " WHERE b.digest = %s AND l.repository_name = %s"
)


def renew(digest: str) -> str | None:
    """The object the digest's row names, the row's update_time renewed (committed) before
    a push relies on it: garbage collection re-reads it under the row's lock and keeps a
    blob touched within its window. None without a row."""
    rows = Blob.objects.filter(digest=digest)
    if not rows.update(update_time=timezone.now()):
        return None
    return rows.values_list("object_name", flat=True).first()


def reusable(found: str | None) -> bool:
    """Whether a push may rely on the object `renew` found instead of writing the bytes
    (checked outside any transaction): one lost outside the registry is written again."""
    return found is not None and storage.object_exists(found)


def claim(digest: str, size: int, fresh: str | None, lost: str | None = None) -> Blob | None:
    """The digest's row locked until the caller's transaction ends, touched: the existing
    one (its object kept, unless it still names `lost`, the object the caller found
    missing: it then names `fresh`), else a new one naming the object `fresh` that the
    caller wrote before (None when there is neither: garbage collection removed the row
    meanwhile).

    Two pushes of one digest racing: the second INSERT waits for the first and fails, and
    the second push takes the first one's row; its own object is then the caller's to
    delete after the commit (the row names another).
    """
    now = timezone.now()
    blob = Blob.objects.select_for_update().filter(digest=digest).first()
    if blob is None and fresh is not None:
        try:
            with transaction.atomic():
                return Blob.objects.create(
                    digest=digest, size=size, object_name=fresh, update_time=now
                )
        except IntegrityError:
            blob = Blob.objects.select_for_update().filter(digest=digest).first()
    if blob is None:
        return None
    if fresh is not None and lost is not None and blob.object_name == lost:
        blob.object_name = fresh
    Blob.objects.filter(pk=blob.pk).update(update_time=now, object_name=blob.object_name)
    return blob


def put(digest: str, size: int, write) -> Blob:
    """The digest's row, committed and naming stored bytes (a manifest's own blob): the
    existing row renewed, else `write()` stores a new object (outside any transaction)
    and a short transaction records it; written after all when garbage collection
    removed the row between the renew and the transaction."""
    found = renew(digest)
    fresh = None if reusable(found) else write()
    with transaction.atomic():
        blob = claim(digest, size, fresh, lost=found)
    if blob is None:
        fresh = write()
        with transaction.atomic():
            blob = claim(digest, size, fresh)
    if fresh is not None and blob.object_name != fresh:
        storage.delete_objects([fresh])
    return blob


def open_content(blob: Blob, start: int = 0, length: int | None = None):
    """The blob's bytes, open at `start`; BLOB_UNKNOWN when garbage collection removed them
    meanwhile."""
    try:
        return storage.open_blob(blob.object_name, start, length)
    except FileNotFoundError as exc:
        raise BlobUnknown(detail={"digest": blob.digest}) from exc


def hold(repository_name: str, held: list[Blob]) -> None:
    """The repository holds these blobs: linked, and counted in its project's usage again
    if an artifact delete had released them (a concurrent push may link one first)."""
    RepositoryBlob.objects.filter(
        repository_name=repository_name, blob__in=held, released=True
    ).update(released=False)
    RepositoryBlob.objects.bulk_create(
        [
            RepositoryBlob(repository_name=repository_name, blob=blob, released=False)
            for blob in held
        ],
        ignore_conflicts=True,
    )


def unlink(repository_name: str, digest: str) -> None:
    blob = linked_blob(repository_name, digest)
    RepositoryBlob.objects.filter(repository_name=repository_name, blob=blob).delete()


def _add_to_project(
    repository_name: str, digest: str, size: int, store, check_only: bool = False
) -> None:
    """Charge the project for a blob new to it (403 past its limit), then `store()` it;
    `check_only`: only the early refusal, nothing charged or stored."""
    project = auth.project_named(auth.project_name_of(repository_name))
    if project is None:
        raise NameUnknown(detail={"name": repository_name})
    try:
        if check_only:
            quota.check_blob(project, digest, size)
        else:
            quota.add_blob(project, digest, size, store)
    except QuotaExceeded as exc:
        raise Denied(exc.message) from exc
    except NotFound as exc:
        raise NameUnknown(detail={"name": repository_name}) from exc


def mount(repository_name: str, blob: Blob) -> None:
    _add_to_project(repository_name, blob.digest, blob.size, lambda: hold(repository_name, [blob]))


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
    storage.start_upload(upload.id)
    return upload


def get_upload(repository_name: str, upload_id: str) -> Upload:
    try:
        key = uuid.UUID(upload_id)
    except ValueError as exc:
        raise BlobUploadUnknown(detail={"uuid": upload_id}) from exc
    upload = Upload.objects.filter(id=key, repository_name=repository_name).first()
    if upload is None or not storage.upload_staged(upload.id):
        raise BlobUploadUnknown(detail={"uuid": upload_id})
    return upload


@contextlib.contextmanager
def _held(upload: Upload):
    """The upload's staging held by this request alone, `upload.offset` read afresh.

    Requests on one session are serialized: a second one arriving while a chunk is being
    received (or the upload completed) is refused, as Distribution refuses a chunk that
    does not continue the upload where it stands.
    """
    with contextlib.ExitStack() as stack:
        try:
            staged = stack.enter_context(storage.hold_upload(upload.id))
        except FileNotFoundError as exc:
            raise BlobUploadUnknown(detail={"uuid": str(upload.id)}) from exc
        except storage.UploadBusy as exc:
            raise RangeInvalid(
                "another request is writing to this upload", headers=upload_headers(upload)
            ) from exc
        upload.offset = staged.offset
        try:
            yield staged
        except storage.UploadBusy as exc:
            # Its hold lapsed while it stalled and another request took the session.
            raise RangeInvalid(
                "another request is writing to this upload", headers=upload_headers(upload)
            ) from exc
        except storage.UploadGone as exc:
            raise BlobUploadUnknown(detail={"uuid": str(upload.id)}) from exc


def receive_chunk(upload: Upload, stream, length: int | None, content_range: str) -> Upload:
    """Append one PATCH body; it must continue the upload exactly where it stands."""
    span = None
    if content_range:
        match = CONTENT_RANGE.match(content_range.strip())
        if not match:
            raise RangeInvalid("invalid content range", detail={"Content-Range": content_range})
        span = int(match.group(1)), int(match.group(2))
        if span[1] < span[0]:
            raise RangeInvalid("invalid content range", detail={"Content-Range": content_range})
        if length is not None and span[1] - span[0] + 1 != length:
            raise RangeInvalid("Content-Range does not match Content-Length")
    with _held(upload) as staged:
        if span is not None and span[0] != upload.offset:
            raise RangeInvalid(
                f"chunk starts at {span[0]} but the upload is at {upload.offset}",
                headers=upload_headers(upload),
            )
        _append(upload, staged, stream, length)
    return upload


def _append(upload: Upload, staged, stream, length: int | None, algorithm="sha256") -> None:
    """Receive the body and record the new offset; nothing is kept of a failed one."""
    try:
        upload.offset = staged.append(stream, length, algorithm)
    except ConnectionError as exc:
        raise SizeInvalid("request body shorter than its Content-Length") from exc


def finish_upload(upload: Upload, digest: str, stream=None, length: int | None = None) -> None:
    """Take the last bytes (if any), verify, and make the blob visible in the repository.

    The blob is stored only if the staged bytes are exactly the bytes received (their
    length is the recorded offset) and they hash to `digest`; a mismatch cancels the
    upload. The project is charged for it then (Harbor counts a blob when its upload
    completes).
    """
    algorithm, _ = digests.parse(digest)
    with _held(upload) as staged:
        if stream is not None and length != 0:
            _append(upload, staged, stream, length, algorithm)
        if staged.size() != upload.offset or staged.digest(algorithm) != digest:
            cancel_upload(upload)
            raise DigestInvalid(detail={"digest": digest})
        # Refused early, before the bytes are copied; the charge checks again under the lock.
        _add_to_project(upload.repository_name, digest, upload.offset, None, check_only=True)
        _store_and_link(upload, digest, staged)
        # The staging goes after the charge committed (on S3: requests to the service).
        storage.discard_upload_file(upload.id)
        upload.delete()


def _store_and_link(upload: Upload, digest: str, staged) -> None:
    """The verified bytes become the digest's blob in the repository, charged.

    No request to the storage inside the transaction: a new object is written before it
    (unless the digest has a row whose object is there: it is re-used), the row is created
    or locked and linked inside it, and an object that ended up unused (refused, or a
    racing upload's row won) is deleted after it. A row that garbage collection removed
    between the renew and the transaction is replaced: the bytes are written after all and
    it is tried again.
    """
    found = renew(digest)
    fresh = None if reusable(found) else staged.store(digest)
    for _ in range(2):
        claimed = []

        def store(fresh=fresh, claimed=claimed):
            blob = claim(digest, upload.offset, fresh, lost=found)
            if blob is not None:
                hold(upload.repository_name, [blob])
                claimed.append(blob)

        try:
            _add_to_project(upload.repository_name, digest, upload.offset, store)
        except BaseException:
            if fresh is not None:
                storage.delete_objects([fresh])
            raise
        if claimed:
            if fresh is not None and claimed[0].object_name != fresh:
                storage.delete_objects([fresh])
            return
        fresh = staged.store(digest)


def cancel_upload(upload: Upload) -> None:
    storage.discard_upload_file(upload.id)
    upload.delete()


def cancel(upload: Upload) -> None:
    """A client's DELETE of the session: refused, as a second chunk is, while another
    request is writing to or completing it (its staging would go from under it)."""
    with _held(upload):
        cancel_upload(upload)


def upload_headers(upload: Upload) -> dict:
    return {
        "Location": f"/v2/{upload.repository_name}/blobs/uploads/{upload.id}",
        "Range": f"0-{max(upload.offset - 1, 0)}",
        "Docker-Upload-UUID": str(upload.id),
    }


def purge_abandoned_uploads(older_than) -> int:
    """Cancel uploads untouched for `older_than`, and staged files no session owns."""
    cutoff = timezone.now() - older_than
    purged = 0
    for upload in Upload.objects.filter(update_time__lt=cutoff):
        try:
            with _held(upload):
                cancel_upload(upload)
        except RangeInvalid:
            continue  # a request is receiving a chunk of it right now
        except BlobUploadUnknown:
            upload.delete()
        purged += 1
    known = {str(key) for key in Upload.objects.values_list("id", flat=True)}
    storage.purge_orphans(known, cutoff)
    return purged
