"""Artifacts and tags: recorded by a push, touched by a pull, deleted with their tags.

The OCI distribution API (push, pull, delete) and the management API both go through
these functions, so repositories, artifacts, tags and quota usage stay consistent.
"""

from collections.abc import Iterable, Mapping

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from registry.distribution import usage
from registry.errors import NotFound
from registry.models import Artifact, ArtifactReference, Project, Repository, Tag
from registry.services import quota
from registry.services.project_lock import lock_project
from registry.services.repositories import find_repository, repository_full_name

ICONS = {
    Artifact.Type.IMAGE: "sha256:0048162a053eef4d4ce3fe7518615bef084403614f8bca43b40ae2e762e11e06",
    Artifact.Type.CHART: "sha256:61cf3a178ff0f75bf08a25d96b75cf7355dc197749a9f128ed3ef34b0df05518",
    Artifact.Type.CNAB: "sha256:089bdda265c14d8686111402c8ad629e8177a1ceb7dcd0f7f39b6480f623b3bd",
}
DEFAULT_ICON = "sha256:da834479c923584f4cbcdecc0dac61f32bef1d51e8aae598cf16bd154efab49f"
IMAGE_MEDIA_TYPES = (
    "application/vnd.oci.image.config.v1+json",
    "application/vnd.docker.container.image.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
CHART_MEDIA_TYPES = ("application/vnd.cncf.helm.config.v1+json",)


def artifact_kind(media_type: str) -> str:
    if media_type in IMAGE_MEDIA_TYPES:
        return Artifact.Type.IMAGE
    if media_type in CHART_MEDIA_TYPES:
        return Artifact.Type.CHART
    if media_type.startswith("application/vnd.cnab"):
        return Artifact.Type.CNAB
    if media_type.startswith("application/vnd.wasm"):
        return Artifact.Type.WASM
    return Artifact.Type.UNKNOWN


@transaction.atomic
def record_artifact_push(
    project: Project,
    repository_name: str,
    digest: str,
    media_type: str,
    manifest_media_type: str,
    artifact_type: str = "",
    size: int = 0,
    extra_attrs: Mapping | None = None,
    annotations: Mapping | None = None,
    references: Iterable[Mapping] = (),
    tag: str | None = None,
    kind: str | None = None,
) -> Artifact:
    """Record a pushed manifest: create the repository, the artifact and the tag as needed.

    `repository_name` is the full name (`project/repo`) or the part after the project.
    `references` are the children of an index: dicts with `digest` and optional
    `platform`, `annotations`, `urls`; children pushed earlier are linked by digest.
    Pushing a known digest again only (re)points the tag. Usage counts the blobs linked
    to the project (the manifest's included, linked by the caller in the same transaction);
    the project row is locked so concurrent pushes into one project count one at a time.
    """
    project = lock_project(project)
    now = timezone.now()
    repository, _ = Repository.objects.get_or_create(
        name=repository_full_name(project, repository_name), defaults={"project": project}
    )
    artifact = Artifact.objects.filter(repository=repository, digest=digest).first()
    if artifact is None:
        kind = kind or artifact_kind(media_type)
        artifact = Artifact.objects.create(
            repository=repository,
            project=project,
            digest=digest,
            type=kind,
            media_type=media_type,
            manifest_media_type=manifest_media_type,
            artifact_type=artifact_type or media_type,
            size=size,
            icon=ICONS.get(kind, DEFAULT_ICON),
            push_time=now,
            extra_attrs=dict(extra_attrs) if extra_attrs is not None else None,
            annotations=dict(annotations) if annotations is not None else None,
        )
        _link_references(artifact, references)
    else:
        Artifact.objects.filter(pk=artifact.pk).update(push_time=now)
        artifact.push_time = now
    if tag:
        Tag.objects.update_or_create(
            repository=repository,
            name=tag,
            defaults={"artifact": artifact, "push_time": now, "pull_time": None},
        )
    Repository.objects.filter(pk=repository.pk).update(update_time=now)
    quota.account(project)
    return artifact


def _link_references(parent: Artifact, references: Iterable[Mapping]) -> None:
    rows = []
    for reference in references:
        child_digest = reference["digest"]
        rows.append(
            ArtifactReference(
                parent=parent,
                child=Artifact.objects.filter(
                    repository_id=parent.repository_id, digest=child_digest
                ).first(),
                child_digest=child_digest,
                platform=reference.get("platform"),
                annotations=reference.get("annotations"),
                urls=reference.get("urls"),
            )
        )
    ArtifactReference.objects.bulk_create(rows)


def delete_tag(repository: Repository, name: str) -> None:
    if not Tag.objects.filter(repository=repository, name=name).delete()[0]:
        raise NotFound(f"tag {name} not found")


def _delete_artifacts(artifacts: list[Artifact]) -> tuple[set[str], set[str], list[str]]:
    """Delete artifacts, then their children no one else references or tags, and their
    accessories (the artifacts of the repository pushed with one of them as `subject`, tagged
    or not, unless an index references them), recursively. Returns the digests deleted,
    those of the blobs they referenced (read before their records go), and the accessories'
    digests, deepest first, as Harbor deletes (and audits) them.

    Depth first on a stack of its own, not by recursion: a pusher can chain accessories
    (each one's subject the one before) past Python's recursion limit."""
    deleted: set[str] = set()
    referenced: set[str] = set()
    accessories: list[str] = []
    # Tasks run last in, first out: a batch's orphaned children (and theirs) go before its
    # accessories are looked for, and an accessory's own accessories are recorded before it.
    tasks: list[tuple[str, object]] = [("delete", artifacts)]
    while tasks:
        task, value = tasks.pop()
        if task == "record":
            accessories.extend(value)
        elif task == "delete" and value:
            ids = [artifact.pk for artifact in value]
            deleted |= {artifact.digest for artifact in value}
            referenced |= usage.referenced_by(ids)
            child_ids = set(
                ArtifactReference.objects.filter(
                    parent_id__in=ids, child__isnull=False
                ).values_list("child_id", flat=True)
            )
            Artifact.objects.filter(pk__in=ids).delete()
            orphans = _unreferenced().filter(pk__in=child_ids - set(ids))
            orphans = orphans.annotate(tag_count=Count("tags")).filter(tag_count=0)
            tasks += [("accessories", value), ("delete", list(orphans))]
        elif task == "accessories":
            subjects = Q()
            for repository_id in {artifact.repository_id for artifact in value}:
                in_repository = [a.digest for a in value if a.repository_id == repository_id]
                subjects |= Q(
                    repository_id=repository_id, referrer__subject_digest__in=in_repository
                )
            found = list(_unreferenced().filter(subjects).order_by("pk"))
            tasks += [("record", [artifact.digest for artifact in found]), ("delete", found)]
    return deleted, referenced, accessories


def _unreferenced():
    return Artifact.objects.annotate(parents=Count("referenced_by")).filter(parents=0)


@transaction.atomic
def delete_artifact(artifact: Artifact) -> list[str]:
    """Delete an artifact with its tags and labels, its orphaned index children and its
    accessories (signatures, SBOMs: Harbor deletes them with their subject). Returns the
    accessories' digests, for the caller to audit each as Harbor does.

    The blobs no artifact left in the repository references are released, as Harbor
    releases a project's blob associations when an artifact goes.
    """
    project_id = artifact.project_id
    Project.objects.select_for_update().filter(pk=project_id).first()
    # Read again under the lock: a racing delete may have taken it since the caller read it.
    # A signature pushed meanwhile is either committed (and found below) or waits for the
    # lock and then finds its subject gone, as a referrer pushed before its subject does.
    if not Artifact.objects.filter(pk=artifact.pk).exists():
        raise NotFound(f"artifact {artifact.digest} not found")
    repository = artifact.repository
    deleted, referenced, accessories = _delete_artifacts([artifact])
    remaining = set(Artifact.objects.filter(repository=repository).values_list("digest", flat=True))
    usage.release(repository.name, deleted | referenced, remaining)
    quota.refresh_usage(project_id)
    return accessories


def find_artifact(project: Project, repository_name: str, reference: str) -> Artifact:
    """An artifact of a project's repository by digest (`sha256:...`) or by tag."""
    repository = find_repository(project, repository_name)
    candidates = Artifact.objects.filter(repository=repository)
    artifact = (
        candidates.filter(digest=reference).first()
        if reference.startswith("sha256:")
        else candidates.filter(tags__name=reference).first()
    )
    if artifact is None:
        raise NotFound(f"artifact {repository.name}:{reference} not found")
    artifact.repository = repository  # read already: callers name it
    return artifact
