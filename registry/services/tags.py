"""Tags made and removed through the management API (Harbor's createTag and deleteTag).

A push tags through `artifacts.record_artifact_push`; these add a tag to an artifact the
repository already holds, or remove one from it. Either touches the repository's
`update_time`, as Harbor's tag controller does; the artifact stays (untagged, it leaves
Harbor's default artifact set only if an index references it).
"""

from django.db import IntegrityError, transaction
from django.utils import timezone

from registry.distribution.manifest_documents import TAG_SHAPE
from registry.errors import BadRequest, Conflict, MethodNotAllowed, NotFound
from registry.models import Artifact, Project, Repository, Tag
from registry.services.project_lock import lock_project


def check_tag_name(name: str) -> None:
    """The OCI distribution spec's tag rule, which Harbor applies to a new tag (128
    characters at most; no "/", no leading "." or "-", no control character)."""
    if not TAG_SHAPE.match(name):
        raise BadRequest(f"invalid tag name: {name}")


def create_tag(project: Project, artifact: Artifact, name: str) -> Tag:
    """Tag `artifact` (of `project`) as `name` in its repository.

    Conflict when the repository holds that tag already, whichever artifact it names
    (Harbor does not move a tag here; a push does). The project row is locked first, so
    that a racing second request waits and then sees the tag (SQLite: the unique
    constraint answers), and a project deleted meanwhile is NotFound.
    """
    check_tag_name(name)
    with transaction.atomic():
        if lock_project(project).registry_id:
            # A proxy cache mirrors its upstream's tags (Harbor's createTag refuses too).
            raise MethodNotAllowed("the operation isn't supported for a proxy cache project")
        if not Artifact.objects.filter(pk=artifact.pk).exists():
            raise NotFound(f"artifact {artifact.digest} not found")
        if Tag.objects.filter(repository_id=artifact.repository_id, name=name).exists():
            raise _exists(artifact, name)
        now = timezone.now()
        try:
            with transaction.atomic():
                tag = Tag.objects.create(
                    repository_id=artifact.repository_id,
                    artifact=artifact,
                    name=name,
                    push_time=now,
                )
        except IntegrityError as exc:
            raise _exists(artifact, name) from exc
        _touch(artifact.repository_id, now)
    return tag


def delete_tag(artifact: Artifact, name: str) -> None:
    """Remove the tag `name` from `artifact`; NotFound when the artifact holds no such tag
    (a tag of the same name on another artifact stays)."""
    with transaction.atomic():
        deleted, _ = Tag.objects.filter(artifact_id=artifact.pk, name=name).delete()
        if not deleted:
            raise NotFound(f"tag {name} attached to artifact {artifact.pk} not found")
        _touch(artifact.repository_id, timezone.now())


def _exists(artifact: Artifact, name: str) -> Conflict:
    return Conflict(f"tag {name} already exists under the repository {artifact.repository_id}")


def _touch(repository_id: int, now) -> None:
    Repository.objects.filter(pk=repository_id).update(update_time=now)
