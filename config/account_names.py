"""Account names across the three services. One Django user signs in to all of them, and
the code host resolves names as Gitea does, ignoring case (its `lower_name`), with
organizations in the same namespace as users: two accounts whose names differ only in
case, or an account named like an organization, would make a name in a git URL or an API
call stand for somebody else. An app that holds names of its own registers, in its
AppConfig.ready, whether it holds a name; a service about to create an account asks
`name_taken` first.
"""

from collections.abc import Callable

from django.contrib.auth import get_user_model

# service -> whether it holds the name (compared as that service compares names).
_holders: dict[str, Callable[[str], bool]] = {}


def register(service: str, holds: Callable[[str], bool]) -> None:
    _holders[service] = holds


def name_taken(name: str) -> bool:
    """Whether an account named `name` would collide: an account of that name in any case,
    or a name a service holds."""
    model = get_user_model()
    lookup = {f"{model.USERNAME_FIELD}__iexact": name}
    if model._default_manager.filter(**lookup).exists():
        return True
    return any(holds(name) for holds in _holders.values())
