"""Labels, global or of a project, and their attachment to artifacts."""

from django.db import IntegrityError, transaction

from registry.errors import BadRequest, Conflict, NotFound
from registry.models import Artifact, ArtifactLabel, Label, Project
from registry.services.project_lock import lock_project


@transaction.atomic
def create_label(
    name: str, scope: str, project: Project | None, description: str = "", color: str = ""
) -> Label:
    if not name:
        raise BadRequest("label name is required")
    if scope not in (Label.Scope.GLOBAL, Label.Scope.PROJECT):
        raise BadRequest(f"invalid scope: {scope}")
    if scope == Label.Scope.PROJECT and project is None:
        raise BadRequest("project_id is required for a project label")
    if scope == Label.Scope.PROJECT:
        lock_project(project)
    try:
        with transaction.atomic():
            return Label.objects.create(
                name=name,
                scope=scope,
                project=project if scope == Label.Scope.PROJECT else None,
                description=description,
                color=color,
            )
    except IntegrityError as exc:
        raise Conflict(f"label {name} already exists") from exc


@transaction.atomic
def update_label(label: Label, name: str | None, description: str | None, color: str | None):
    # Locked first: a label deleted meanwhile is not found (a save would insert it again).
    if not Label.objects.select_for_update().filter(pk=label.pk).exists():
        raise NotFound(f"label {label.pk} not found")
    if name is not None:
        if not name:
            raise BadRequest("label name is required")
        label.name = name
    if description is not None:
        label.description = description
    if color is not None:
        label.color = color
    try:
        with transaction.atomic():
            label.save(update_fields=["name", "description", "color", "update_time"])
    except IntegrityError as exc:
        raise Conflict(f"label {label.name} already exists") from exc
    return label


def add_label_to_artifact(artifact: Artifact, label: Label) -> None:
    if label.scope == Label.Scope.PROJECT and label.project_id != artifact.project_id:
        raise BadRequest(f"label {label.pk} does not belong to the project of the artifact")
    try:
        with transaction.atomic():
            ArtifactLabel.objects.create(artifact=artifact, label=label)
    except IntegrityError as exc:
        raise Conflict(f"label {label.pk} is already added to the artifact") from exc


def remove_label_from_artifact(artifact: Artifact, label_id: int) -> None:
    if not ArtifactLabel.objects.filter(artifact=artifact, label_id=label_id).delete()[0]:
        raise NotFound(f"label {label_id} is not added to the artifact {artifact.pk}")
