"""Deleting an account: one operation across the three services (one Django user signs in
to all of them), whichever door it comes through (Harbor's and Gitea's user deletion, the
admin site).

Each app registers, in its AppConfig.ready, what an account still owns in it (things
whose deletion would lose other people's work or leave files behind: repositories,
organization memberships, stores) and the files to remove once the account is gone. The
account is deleted only when it owns nothing anywhere; otherwise AccountStillOwns names
every holding, and nothing changes. The files go after the deletion commits.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction


@dataclass(frozen=True)
class Holding:
    """Something the account still owns in one service, as that service words it."""

    service: str  # "codehost", "registry", "storefront"
    message: str


class AccountStillOwns(Exception):
    def __init__(self, holdings: list[Holding]):
        super().__init__("; ".join(holding.message for holding in holdings))
        self.holdings = holdings


# service -> what the account owns there (a list of Holding).
_holdings: dict[str, Callable[[object], list[Holding]]] = {}
# service -> files to remove once the account is deleted: called in the deleting
# transaction, it returns the function that removes them after the commit.
_leftovers: dict[str, Callable[[object], Callable[[], None]]] = {}


def register(
    service: str,
    *,
    holdings: Callable[[object], list[Holding]] | None = None,
    leftovers: Callable[[object], Callable[[], None]] | None = None,
) -> None:
    if holdings is not None:
        _holdings[service] = holdings
    if leftovers is not None:
        _leftovers[service] = leftovers


def holdings(user) -> list[Holding]:
    return [found for check in _holdings.values() for found in check(user)]


def delete_account(user) -> None:
    """Delete `user` everywhere, or raise AccountStillOwns (and change nothing)."""
    with transaction.atomic():
        # The row lock makes two deletions of one account take turns.
        user = get_user_model().objects.select_for_update().get(pk=user.pk)
        found = holdings(user)
        if found:
            raise AccountStillOwns(found)
        removers = [collect(user) for collect in _leftovers.values()]
        user.delete()
        for remove in removers:
            transaction.on_commit(remove)
