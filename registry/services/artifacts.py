"""Artifacts and tags: recorded by a push, touched by a pull, deleted with their tags.

The OCI distribution API (push, pull, delete) and the management API both go through
these functions, so repositories, artifacts, tags and quota usage stay consistent.
"""

from collections.abc import Iterable, Mapping

from django.db import connection, transaction
from django.db.models import Count, F
from django.utils import timezone

from registry import configuration
from registry.distribution import usage
from registry.errors import NotFound
from registry.models import Artifact, ArtifactReference, AuditLog, Project, Repository, Tag
from registry.services import audit, quota
from registry.services.repositories import repository_full_name

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
    project = Project.objects.select_for_update().get(pk=project.pk)
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


def record_pull(
    repository: Repository, artifact: Artifact, tag: str | None = None, username: str = ""
) -> None:
    """A manifest pull: pull times, the repository's pull count (unless disabled) and the
    audit record, written together."""
    config = configuration.values()  # one cache read for every setting used here
    log = audit.entry(
        artifact.project_id,
        "pull",
        "artifact",
        audit.artifact_resource(repository.name, artifact.digest, tag),
        username,
        config,
    )
    if config["pull_count_update_disable"]:
        if log is not None:
            log.save()
        return
    now = timezone.now()
    if connection.vendor == "postgresql":
        # Every manifest GET lands here: one statement (one round trip, no transaction to
        # open and commit) instead of three updates and an insert.
        params = [now, artifact.pk, now, repository.pk, tag, now, repository.pk]
        statement = PULL_STATEMENT
        if log is not None:
            statement = PULL_LOG_STATEMENT
            params = [
                log.project_id,
                log.operation,
                log.resource_type,
                log.resource,
                log.username,
                log.op_time,
                *params,
            ]
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
    else:
        with transaction.atomic():
            Artifact.objects.filter(pk=artifact.pk).update(pull_time=now)
            if tag:
                Tag.objects.filter(repository=repository, name=tag).update(pull_time=now)
            # Counted in the database: concurrent pulls must not overwrite each other's count.
            Repository.objects.filter(pk=repository.pk).update(
                pull_count=F("pull_count") + 1, update_time=now
            )
            if log is not None:
                log.save()
    repository.pull_count += 1


PULL_UPDATES = f"""
artifact AS (UPDATE {Artifact._meta.db_table} SET pull_time = %s WHERE id = %s),
tag AS (UPDATE {Tag._meta.db_table} SET pull_time = %s WHERE repository_id = %s AND name = %s)
UPDATE {Repository._meta.db_table} SET pull_count = pull_count + 1, update_time = %s
WHERE id = %s
"""
PULL_STATEMENT = "WITH" + PULL_UPDATES
PULL_LOG_STATEMENT = f"""WITH audit AS (
INSERT INTO {AuditLog._meta.db_table}
(project_id, operation, resource_type, resource, username, op_time)
VALUES (%s, %s, %s, %s, %s, %s)),{PULL_UPDATES}"""


def delete_tag(repository: Repository, name: str) -> None:
    if not Tag.objects.filter(repository=repository, name=name).delete()[0]:
        raise NotFound(f"tag {name} not found")


def _delete_artifacts(artifacts: list[Artifact]) -> set[str]:
    """Delete artifacts, then their children no one else references or tags; their digests."""
    if not artifacts:
        return set()
    ids = [artifact.pk for artifact in artifacts]
    child_ids = set(
        ArtifactReference.objects.filter(parent_id__in=ids, child__isnull=False).values_list(
            "child_id", flat=True
        )
    )
    Artifact.objects.filter(pk__in=ids).delete()
    orphans = (
        Artifact.objects.filter(pk__in=child_ids - set(ids))
        .annotate(parents=Count("referenced_by"), tag_count=Count("tags"))
        .filter(parents=0, tag_count=0)
    )
    return {artifact.digest for artifact in artifacts} | _delete_artifacts(list(orphans))


@transaction.atomic
def delete_artifact(artifact: Artifact) -> None:
    """Delete an artifact with its tags and labels (and orphaned index children).

    The blobs no artifact left in the repository references are released, as Harbor
    releases a project's blob associations when an artifact goes.
    """
    project_id = artifact.project_id
    Project.objects.select_for_update().filter(pk=project_id).first()
    repository = artifact.repository
    deleted = _delete_artifacts([artifact])
    remaining = set(Artifact.objects.filter(repository=repository).values_list("digest", flat=True))
    usage.release(repository.name, deleted, remaining)
    quota.refresh_usage(project_id)
