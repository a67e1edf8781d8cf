"""Repositories: names, description, deletion."""

import html

from django.db import transaction

from registry.errors import NotFound
from registry.models import Project, Repository
from registry.services import quota


def repository_full_name(project: Project, repository_name: str) -> str:
    if repository_name.startswith(project.name + "/"):
        return repository_name
    return f"{project.name}/{repository_name}"


@transaction.atomic
def delete_repository(repository: Repository) -> None:
    """Delete a repository, every artifact and tag in it, and release their storage."""
    project_id = repository.project_id
    Project.objects.select_for_update().filter(pk=project_id).first()
    # Read again under the lock: a racing delete may have taken it since the caller read it.
    if not Repository.objects.filter(pk=repository.pk).exists():
        raise NotFound(f"repository {repository.name} not found")
    repository.delete()
    quota.refresh_usage(project_id)


@transaction.atomic
def update_repository_description(repository: Repository, description: str) -> None:
    if not Repository.objects.select_for_update().filter(pk=repository.pk).exists():
        raise NotFound(f"repository {repository.name} not found")
    repository.description = html.escape(description, quote=True)
    repository.save(update_fields=["description", "update_time"])


def find_repository(project: Project, name: str) -> Repository:
    full = repository_full_name(project, name)
    repository = Repository.objects.filter(name=full, project=project).first()
    if repository is None:
        raise NotFound(f"repository {full} not found")
    return repository
