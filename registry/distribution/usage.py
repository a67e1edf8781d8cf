"""What a project's storage usage counts, as Harbor counts it: each blob held in one of its
repositories once, at its stored size (layers, configs and manifests alike).

A blob is held from the moment its upload completes (or it is mounted), whether or not a
manifest ever references it; deleting an artifact releases the blobs that no artifact
left in the repository references (the repository still reaches them until garbage
collection, as in Distribution; referencing one again counts it again). Blobs uploaded
and never referenced stay counted until their repository (or project) is deleted or
garbage collection removes them, as in Harbor.
"""

from django.db.models import Sum

from registry.distribution.models import ArtifactBlob, Blob, RepositoryBlob


def _in_project(project_name: str):
    return RepositoryBlob.objects.filter(
        repository_name__startswith=project_name + "/", released=False
    )


def project_bytes(project_name: str) -> int:
    held = _in_project(project_name).values("blob_id")
    return Blob.objects.filter(pk__in=held).aggregate(total=Sum("size"))["total"] or 0


def held_by_project(project_name: str, digest: str) -> bool:
    return _in_project(project_name).filter(blob__digest=digest).exists()


def referenced_by(artifact_ids) -> set[str]:
    """The configs and layers the artifacts' image manifests reference (none for an index):
    their recorded references, so that no manifest is read from the storage while the
    caller's transaction holds the project (no storage request inside a transaction)."""
    return set(
        ArtifactBlob.objects.filter(artifact_id__in=artifact_ids).values_list(
            "blob__digest", flat=True
        )
    )


def release(repository_name: str, deleted: set[str], remaining: set[str]) -> None:
    """Release the deleted manifests and blobs (`deleted`: their digests and those of the
    blobs they referenced) that no manifest left in the repository (`remaining`) uses:
    uncounted, still reachable there until garbage collection (RepositoryBlob.released)."""
    candidates = set(deleted) - remaining
    if not candidates:
        return
    candidates -= set(
        ArtifactBlob.objects.filter(artifact__repository__name=repository_name).values_list(
            "blob__digest", flat=True
        )
    )
    RepositoryBlob.objects.filter(
        repository_name=repository_name, blob__digest__in=candidates
    ).update(released=True)
