"""Account operations that span the three services (one Django user signs in to all).

Each app answers `account_disabled` with what it must revoke besides the sign-in itself
(code hosting: its access tokens); apps connect their receiver in their AppConfig.ready.
"""

import secrets

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.dispatch import Signal

# Sent inside the disabling transaction with `user`: revoke what the app issued to them.
account_disabled = Signal()
# Sent after an administrator set a new random password for `user` (code hosting makes
# them choose their own at the next sign-in, as Gitea's must_change_password).
password_reset = Signal()


def _end_sessions(user_ids: set[int]) -> None:
    # Sessions are signed blobs keyed by nothing but their id: decode to find the user's.
    # A scan, done only when an administrator disables an account.
    doomed = [
        session.pk
        for session in Session.objects.iterator()
        if str(session.get_decoded().get("_auth_user_id")) in {str(pk) for pk in user_ids}
    ]
    Session.objects.filter(pk__in=doomed).delete()


def disable_accounts(users) -> int:
    """Sign-in refused in all three services, sessions ended, every app's tokens revoked."""
    users = list(users)
    with transaction.atomic():
        get_user_model().objects.filter(pk__in=[user.pk for user in users]).update(is_active=False)
        for user in users:
            user.is_active = False
            account_disabled.send(sender=get_user_model(), user=user)
        _end_sessions({user.pk for user in users})
    return len(users)


def enable_accounts(users) -> int:
    """Sign-in allowed again; revoked tokens stay revoked."""
    users = list(users)
    get_user_model().objects.filter(pk__in=[user.pk for user in users]).update(is_active=True)
    return len(users)


def reset_password(user) -> str:
    """A new random password (returned once, to hand to the user); sessions end."""
    password = secrets.token_urlsafe(12) + "A1a"
    user.set_password(password)
    with transaction.atomic():
        user.save(update_fields=["password"])
        password_reset.send(sender=get_user_model(), user=user)
        _end_sessions({user.pk})
    return password
