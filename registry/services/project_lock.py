"""The project's row lock, taken by changes that add rows belonging to a project."""

from registry.errors import NotFound
from registry.models import Project


def lock_project(project: Project) -> Project:
    """The project's row, locked until the caller's transaction ends (a delete waits for
    it); NotFound when a racing delete took it first (the rows added for it would fail
    their foreign key at commit: a 500, or a misleading 409)."""
    locked = Project.objects.select_for_update().filter(pk=project.pk).first()
    if locked is None:
        raise NotFound(f"project {project.name} not found")
    return locked
