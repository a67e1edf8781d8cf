"""Projects: creation (who may, names, metadata, quota), changes and deletion."""

import re
from collections.abc import Mapping

from django.db import IntegrityError, transaction

from registry import configuration
from registry.errors import BadRequest, Conflict, Forbidden, PreconditionFailed
from registry.models import Project, ProjectMember, ProjectMetadata, Role
from registry.services import robot_permissions
from registry.services.metadata import PROXY_METADATA
from registry.services.project_lock import lock_project

# \Z, not $: Harbor's (Go's) `$` is the end of the text, Python's also matches before a
# final newline.
PROJECT_NAME_RE = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*\Z")


MAX_STORAGE_LIMIT = 1024**5


def validate_project_name(name: str) -> None:
    if not 1 <= len(name) <= 255:
        raise BadRequest(
            f"Project name {name} is illegal in length. (greater than 255 or less than 1)"
        )
    if not PROJECT_NAME_RE.match(name):
        raise BadRequest("project name is not in lower case or contains illegal characters")


def creation_allowed(user) -> bool:
    if getattr(user, "robot", None):
        return False  # a robot owns nothing; projects have a person as owner
    if user.is_superuser:
        return True
    return configuration.get("project_creation_restriction") != "adminonly"


@transaction.atomic
def create_project(
    owner,
    name: str,
    metadata: Mapping[str, str] | None = None,
    public: bool | None = None,
    storage_limit: int | None = None,
    cve_allowlist: Mapping | None = None,
    as_admin: bool = False,
) -> Project:
    """Create a project owned by `owner`, who becomes its projectAdmin.

    Raises Forbidden under `project_creation_restriction=adminonly` for non-admins,
    BadRequest for an illegal name or metadata, Conflict for a name in use.
    """
    if not creation_allowed(owner):
        raise Forbidden("Only system admin can create project")
    validate_project_name(name)
    metadata = _checked_metadata(metadata)
    if metadata.get("retention_id"):
        raise BadRequest("retention_id is not allowed when creating a project")
    metadata.pop("retention_id", None)
    if not metadata.get("public"):
        metadata["public"] = "true" if public else "false"
    if metadata["public"] not in ("true", "false"):
        raise BadRequest(
            f"metadata.public should only be 'true' or 'false', but got: '{metadata['public']}'"
        )
    for key in PROXY_METADATA:
        metadata.pop(key, None)
    limit = _storage_limit(storage_limit, as_admin)
    project = Project(name=name, owner=owner, storage_limit=limit)
    if cve_allowlist:
        _apply_allowlist(project, cve_allowlist)
    try:
        with transaction.atomic():
            project.save()
    except IntegrityError as exc:
        raise Conflict(f"The project named {name} already exists") from exc
    ProjectMetadata.objects.bulk_create(
        ProjectMetadata(project=project, name=key, value=value) for key, value in metadata.items()
    )
    ProjectMember.objects.create(project=project, user=owner, role=Role.PROJECT_ADMIN)
    return project


def _checked_metadata(metadata: Mapping[str, str] | None) -> dict:
    """Metadata as stored: names and values are strings of at most 255 characters."""
    checked = {str(key): str(value) for key, value in (metadata or {}).items()}
    for key, value in checked.items():
        if len(key) > 255 or len(value) > 255:
            raise BadRequest(f"invalid metadata: {key[:64]}")
    return checked


def _storage_limit(requested: int | None, as_admin: bool) -> int:
    default = configuration.get("storage_per_project")
    if not configuration.get("quota_per_project_enable"):
        return -1
    if not as_admin or not requested:
        return default
    if requested != -1 and not 0 < requested <= MAX_STORAGE_LIMIT:
        raise BadRequest(
            f"storage_limit should be -1 or between 1 and {MAX_STORAGE_LIMIT}, got {requested}"
        )
    return requested


def _apply_allowlist(project: Project, allowlist: Mapping) -> None:
    owner_id = allowlist.get("project_id") or 0
    if owner_id and project.pk and owner_id != project.pk:
        raise BadRequest("project_id in cve_allowlist does not match the project")
    items = [item for item in allowlist.get("items") or [] if isinstance(item, Mapping)]
    project.cve_allowlist_items = [{"cve_id": str(item.get("cve_id", ""))} for item in items]
    project.cve_allowlist_expires_at = allowlist.get("expires_at")


@transaction.atomic
def update_project(
    project: Project, metadata: Mapping[str, str] | None, cve_allowlist: Mapping | None
) -> Project:
    """Harbor's PUT: metadata merged (insert or update), the allowlist replaced; nothing else.

    The row is locked first: a project deleted meanwhile is not found (a save would have
    inserted it again), and only the allowlist is written (a push's usage is kept)."""
    lock_project(project)
    metadata = _checked_metadata(metadata)
    if "retention_id" in metadata:
        current = project.metadata.filter(name="retention_id").values_list("value", flat=True)
        if metadata["retention_id"] != (current.first() or ""):
            raise BadRequest("the retention_id in the request's payload does not match")
        metadata.pop("retention_id")
    if "public" in metadata and metadata["public"] not in ("true", "false"):
        raise BadRequest(
            f"metadata.public should only be 'true' or 'false', but got: '{metadata['public']}'"
        )
    for key, value in metadata.items():
        ProjectMetadata.objects.update_or_create(
            project=project, name=key, defaults={"value": value}
        )
    if cve_allowlist is not None:
        _apply_allowlist(project, cve_allowlist)
    project.save(update_fields=["cve_allowlist_items", "cve_allowlist_expires_at", "update_time"])
    return project


def project_deletable(project: Project) -> tuple[bool, str]:
    if project.repositories.exists():
        return False, "the project contains repositories, can not be deleted"
    return True, ""


@transaction.atomic
def delete_project(project: Project) -> None:
    """Delete a project with its members, metadata and labels in one transaction."""
    locked = lock_project(project)
    deletable, _ = project_deletable(locked)
    if not deletable:
        raise PreconditionFailed(
            "precondition failed: the project contains repositories, can not be deleted"
        )
    robot_permissions.unbind_project(locked.pk)
    locked.delete()
