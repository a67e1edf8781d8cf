"""The manifest read path (every pull starts here): a tag or digest resolved in the
repository, the manifest's bytes, the pull recorded.

Manifest bytes are kept in process memory by digest: the bytes at a digest never change,
so a copy is never stale; who may read which digest is decided before (`resolve` finds it
in the repository, the view checked the caller's access), never by this cache. Bounded
by total size, least recently used out first.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from registry.distribution import digests, manifest_documents, pulls, storage
from registry.distribution.errors import ManifestUnknown, NameUnknown
from registry.models import Artifact, Repository, Tag

CACHE_MAX_BYTES = 32 * 1024 * 1024


@dataclass
class Found:
    repository_id: int
    repository_name: str
    project_id: int
    artifact_id: int
    tag: str | None
    digest: str
    media_type: str


def resolve(repository_name: str, reference: str) -> Found:
    """The manifest a tag or digest names in the repository: one indexed query (the unique
    repository name, then the unique tag or digest in it) when it exists."""
    if digests.looks_like_digest(reference):
        digests.parse(reference)
        tag, query = None, RESOLVE_DIGEST
    else:
        tag, query = reference, RESOLVE_TAG
    row = None
    # A reference no tag can be named (a NUL, which PostgreSQL text cannot even hold)
    # names no manifest.
    if tag is None or manifest_documents.TAG_SHAPE.match(tag):
        with connection.cursor() as cursor:
            cursor.execute(query, [repository_name, reference])
            row = cursor.fetchone()
    if row is None:
        if not Repository.objects.filter(name=repository_name).exists():
            raise NameUnknown(detail={"name": repository_name})
        raise ManifestUnknown(detail={"reference": reference})
    artifact_id, project_id, repository_id, digest, media_type = row
    return Found(
        repository_id=repository_id,
        repository_name=repository_name,
        project_id=project_id,
        artifact_id=artifact_id,
        tag=tag,
        digest=digest,
        media_type=media_type,
    )


_RESOLVED = (
    f"SELECT a.id, a.project_id, a.repository_id, a.digest, a.manifest_media_type"
    f" FROM {Repository._meta.db_table} r"
)
RESOLVE_TAG = (
    f"{_RESOLVED} JOIN {Tag._meta.db_table} t ON t.repository_id = r.id"
    f" JOIN {Artifact._meta.db_table} a ON a.id = t.artifact_id"
    " WHERE r.name = %s AND t.name = %s"
)
RESOLVE_DIGEST = (
    f"{_RESOLVED} JOIN {Artifact._meta.db_table} a ON a.repository_id = r.id"
    " WHERE r.name = %s AND a.digest = %s"
)


def content(found: Found) -> bytes:
    """The manifest's bytes; their length is its size (no database round trip)."""
    with _cache_lock:
        cached = _cache.get(found.digest)
        if cached is not None:
            _cache.move_to_end(found.digest)
            return cached
    read = _read(found.digest)
    if len(read) <= CACHE_MAX_BYTES:
        _keep(found.digest, read)
    return read


def size(found: Found) -> int:
    return len(content(found))


def _read(digest: str) -> bytes:
    try:
        return storage.read_bytes(digest)
    except FileNotFoundError as exc:
        raise ManifestUnknown(detail={"digest": digest}) from exc


def record_pull(found: Found, username: str) -> None:
    """Queued: the response does not wait for the records (see `pulls`)."""
    pulls.record(
        pulls.Pull(
            project_id=found.project_id,
            repository_id=found.repository_id,
            repository_name=found.repository_name,
            artifact_id=found.artifact_id,
            digest=found.digest,
            tag=found.tag,
            username=username,
            time=timezone.now(),
        )
    )


_cache: OrderedDict[str, bytes] = OrderedDict()
_cache_held = 0
_cache_lock = threading.Lock()


def _keep(digest: str, content: bytes) -> None:
    global _cache_held
    with _cache_lock:
        if digest in _cache:
            return
        _cache[digest] = content
        _cache_held += len(content)
        while _cache_held > CACHE_MAX_BYTES:
            _, dropped = _cache.popitem(last=False)
            _cache_held -= len(dropped)
