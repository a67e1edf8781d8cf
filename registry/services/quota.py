"""Project storage usage and quota: what a push is charged, and when it is refused."""

from django.db import transaction
from django.db.models import F

from registry import configuration
from registry.distribution import usage
from registry.errors import NotFound, QuotaExceeded
from registry.models import Project


def storage_usage(project: Project) -> int:
    """Bytes a project holds: see registry.distribution.usage (Harbor's project blobs)."""
    return usage.project_bytes(project.name)


def refresh_usage(project_id: int) -> None:
    project = Project.objects.get(pk=project_id)
    Project.objects.filter(pk=project_id).update(storage_used=storage_usage(project))


@transaction.atomic
def recount_usage(project: Project) -> None:
    """The project's usage recomputed under its lock (garbage collection removed blobs
    its repositories held)."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    refresh_usage(project.pk)


def account(project: Project) -> None:
    """Usage recomputed after a change in the (locked) project: QuotaExceeded when it grew
    past the limit, which rolls the change back."""
    used = storage_usage(project)
    if used > project.storage_used:
        check_quota(project, used - project.storage_used)
    Project.objects.filter(pk=project.pk).update(storage_used=used)


@transaction.atomic
def add_blob(project: Project, digest: str, size: int, store) -> None:
    """A blob entering a repository of the project (upload completed, or mounted).

    Harbor charges it then, once per project: QuotaExceeded when it is new to the project
    and would take it past its limit. `store()` makes it present (bytes and link) while the
    project is locked.
    """
    # Written before anything is read: the row's lock on PostgreSQL, the database's write
    # lock on SQLite (where SELECT ... FOR UPDATE does not exist), so on both backends
    # concurrent charges see each other's usage.
    Project.objects.filter(pk=project.pk).update(storage_used=F("storage_used"))
    project = Project.objects.filter(pk=project.pk).first()
    if project is None:  # deleted since the caller found it (its uploads go with it)
        raise NotFound("project not found")
    check_blob(project, digest, size)
    store()
    account(project)


def check_blob(project: Project, digest: str, size: int) -> None:
    """QuotaExceeded when the blob is new to the project and would take it past its limit.
    Without add_blob's lock it is an early answer only (the bytes are not moved for a push
    that is refused already); add_blob checks again under the lock."""
    if not usage.held_by_project(project.name, digest):
        check_quota(project, size)


def check_quota(project: Project, extra_bytes: int) -> None:
    """QuotaExceeded when adding `extra_bytes` would pass the project's storage limit."""
    if project.storage_limit == -1 or not configuration.get("quota_per_project_enable"):
        return
    if project.storage_used + extra_bytes > project.storage_limit:
        raise QuotaExceeded(
            f"adding {extra_bytes} bytes of storage resource, which when updated to current "
            f"usage of {project.storage_used} will exceed the configured upper limit of "
            f"{project.storage_limit}."
        )
