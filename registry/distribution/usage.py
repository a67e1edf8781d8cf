"""What a project's storage usage counts, as Harbor counts it: each blob held in one of its
repositories once, at its stored size (layers, configs and manifests alike).

A blob is held from the moment its upload completes (or it is mounted), whether or not a
manifest ever references it; deleting an artifact releases the blobs that no artifact
left in the repository references. Blobs uploaded and never referenced stay counted until
their repository (or project) is deleted or garbage collection removes them, as in Harbor.
"""

import json

from django.db.models import Sum

from registry.distribution import storage
from registry.distribution.models import Blob, RepositoryBlob

MAX_MANIFEST_READ = 4 * 1024 * 1024


def _in_project(project_name: str):
    return RepositoryBlob.objects.filter(repository_name__startswith=project_name + "/")


def project_bytes(project_name: str) -> int:
    held = _in_project(project_name).values("blob_id")
    return Blob.objects.filter(pk__in=held).aggregate(total=Sum("size"))["total"] or 0


def held_by_project(project_name: str, digest: str) -> bool:
    return _in_project(project_name).filter(blob__digest=digest).exists()


def referenced_blobs(manifest_digest: str) -> set[str]:
    """The config and layers an image manifest references (none for an index)."""
    try:
        document = json.loads(storage.read_bytes(manifest_digest, MAX_MANIFEST_READ))
    except (OSError, ValueError, UnicodeDecodeError):
        return set()
    if not isinstance(document, dict):
        return set()
    layers = document.get("layers")
    descriptors = [document.get("config"), *(layers if isinstance(layers, list) else [])]
    return {
        item["digest"]
        for item in descriptors
        if isinstance(item, dict) and isinstance(item.get("digest"), str)
    }


def release(repository_name: str, deleted: set[str], remaining: set[str]) -> None:
    """Unlink from the repository the deleted manifests and the blobs only they used."""
    candidates = set(deleted)
    for digest in deleted:
        candidates |= referenced_blobs(digest)
    candidates -= remaining
    if not candidates:
        return
    for digest in remaining:
        candidates -= referenced_blobs(digest)
    RepositoryBlob.objects.filter(
        repository_name=repository_name, blob__digest__in=candidates
    ).delete()
