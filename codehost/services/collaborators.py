"""A repository's collaborators: users given their own access mode on it (Gitea's
collaboration), added and removed by the repository's admin (repo_settings.require_repo_admin).
"""

from django.db import transaction

from codehost.errors import Forbidden, Invalid
from codehost.models import AccessMode, Collaboration, Owner, Repository, UserBlock
from codehost.services.locks import lock_repository
from codehost.services.teams import parse_any_mode


def is_collaborator(repo: Repository, user: Owner) -> bool:
    return Collaboration.objects.filter(repo=repo, user=user).exists()


def remove_collaborator(repo: Repository, user: Owner) -> None:
    """Nothing happens when `user` is no collaborator (Gitea answers 204 alike)."""
    Collaboration.objects.filter(repo=repo, user=user).delete()


def add_collaborator(repo: Repository, user: Owner, permission: str) -> None:
    if user.is_organization:
        raise Invalid("user is an organization")
    if user.pk == repo.owner_id:
        raise Invalid("the owner cannot be a collaborator")
    if UserBlock.between(user, repo.owner):
        raise Forbidden("user is blocked by the repository owner")
    mode = parse_any_mode(permission) if permission else AccessMode.WRITE
    if mode == AccessMode.NONE:
        raise Invalid("[Permission]: In")
    with transaction.atomic():
        lock_repository(repo)
        Collaboration.objects.update_or_create(repo=repo, user=user, defaults={"access_mode": mode})
