"""Blocks between users: a block ends the stars and collaborations between the two,
and keeps them apart afterwards (team membership, collaboration, stars).
"""

from django.db import transaction
from django.db.models import Q

from codehost.errors import Rejected
from codehost.models import Collaboration, Owner, Star, UserBlock
from codehost.services import stars


def block_user(blocker: Owner, blockee: Owner, note: str = "") -> None:
    if blocker.pk == blockee.pk or blockee.is_organization:
        raise Rejected("user can not be blocked")
    with transaction.atomic():
        _, created = UserBlock.objects.get_or_create(
            blocker=blocker, blockee=blockee, defaults={"note": note}
        )
        if not created:
            raise Rejected("user is already blocked")
        # Blocking ends stars and collaborations between the two, as in Gitea.
        for star in Star.objects.filter(
            Q(user=blocker, repo__owner=blockee) | Q(user=blockee, repo__owner=blocker)
        ):
            stars.unstar(star.user, star.repo)
        Collaboration.objects.filter(
            Q(user=blockee, repo__owner=blocker) | Q(user=blocker, repo__owner=blockee)
        ).delete()


def unblock_user(blocker: Owner, blockee: Owner) -> None:
    deleted, _ = UserBlock.objects.filter(blocker=blocker, blockee=blockee).delete()
    if not deleted:
        raise Rejected("user is not blocked")


def is_blocked(blocker: Owner, blockee: Owner) -> bool:
    return UserBlock.objects.filter(blocker=blocker, blockee=blockee).exists()
