"""Stars, with the counters kept on the repository and on the user."""

from django.db import transaction
from django.db.models import F

from codehost.errors import Forbidden
from codehost.models import Owner, Repository, Star, UserBlock
from codehost.services.locks import lock_repository


def star(user: Owner, repo: Repository) -> None:
    if UserBlock.between(user, repo.owner):
        raise Forbidden("user is blocked by the repository owner")
    with transaction.atomic():
        lock_repository(repo)
        _, created = Star.objects.get_or_create(user=user, repo=repo)
        if created:
            Repository.objects.filter(pk=repo.pk).update(num_stars=F("num_stars") + 1)
            Owner.objects.filter(pk=user.pk).update(num_stars=F("num_stars") + 1)


def unstar(user: Owner, repo: Repository) -> None:
    with transaction.atomic():
        deleted, _ = Star.objects.filter(user=user, repo=repo).delete()
        if deleted:
            Repository.objects.filter(pk=repo.pk).update(num_stars=F("num_stars") - 1)
            Owner.objects.filter(pk=user.pk).update(num_stars=F("num_stars") - 1)


def is_starred(user: Owner, repo: Repository) -> bool:
    return Star.objects.filter(user=user, repo=repo).exists()
