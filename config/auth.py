"""Credential checks shared by the services' authentication classes.

Clients send Basic credentials on every request and a password hash costs ~0.2 s, so a
verified username/password pair is remembered for a short time under a keyed digest.
The cached entry also holds a fingerprint of the account's password hash and state, so
a password change or a deactivation drops it at once. A directory (LDAP) user's password
lives in the directory, so their entries are kept for less time and carry a generation
that every fresh answer of the directory about the account replaces: once the directory
refuses a password, or accepts another one, the entries cached before are dropped. A
generation is a random token, never a counter: the file cache culls entries when full
(and Redis may evict), and a counter started again would make older entries good again.

Failed checks are throttled (config.signin_throttle), before the cache is even read.
"""

import base64
import hashlib
import hmac
import uuid

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.core.cache import cache

from config import signin_throttle


def _digest(*parts: str) -> str:
    message = "\0".join(parts).encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def account_fingerprint(user) -> str:
    return _digest(user.get_username(), user.password, str(user.is_active), str(user.is_superuser))


def parse_basic(header: str) -> tuple[str, str] | None:
    """(username, password) from an `Authorization: Basic ...` value, or None if malformed."""
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except ValueError:
        # Not base64 (binascii.Error), not UTF-8, or not even ASCII (a header value arrives
        # as latin-1 and b64decode takes ASCII only): all are ValueErrors.
        return None
    username, sep, password = decoded.partition(":")
    if not sep:
        return None
    return username, password


def _is_directory_user(user) -> bool:
    return not user.has_usable_password()


def _generation_key(user_id: int) -> str:
    return f"basic-auth-generation:{user_id}"


def _fingerprint(user) -> str:
    # str(): a generation cached by an earlier release is an int.
    generation = str(cache.get(_generation_key(user.pk), "")) if _is_directory_user(user) else ""
    return _digest(account_fingerprint(user), generation)


def _directory_answered(user) -> None:
    """The directory just judged a password of `user`: what was verified before is stale."""
    cache.set(_generation_key(user.pk), uuid.uuid4().hex, None)


def check_password_cached(request, username: str, password: str):
    """The active user with these credentials, or None; SignInThrottled after too many
    failures (see config.signin_throttle)."""
    # No account is named with a NUL (nor can PostgreSQL text hold one).
    if not username or not password or "\x00" in username:
        return None
    key = "basic-auth:" + _digest(username, password)
    # The throttle is judged first (a throttled guesser learns nothing even from a right
    # password), in the same cache round trip as the remembered pair.
    cached = signin_throttle.check(request, username, also=key)
    if cached:
        user_id, fingerprint = cached
        # One row by primary key: no ORDER BY to compile (as .first() would add).
        user = get_user_model().objects.filter(pk=user_id, is_active=True)[:1]
        user = next(iter(user), None)
        if user is not None and hmac.compare_digest(_fingerprint(user), fingerprint):
            return user
        cache.delete(key)
    user = authenticate(request, username=username, password=password)
    if user is None:
        known = get_user_model().objects.filter(username__iexact=username).first()
        if known is not None and _is_directory_user(known):
            _directory_answered(known)
        return None
    if not user.is_active:
        return None
    seconds = settings.BASIC_AUTH_CACHE_SECONDS
    if _is_directory_user(user):
        _directory_answered(user)
        seconds = min(seconds, settings.BASIC_AUTH_DIRECTORY_CACHE_SECONDS)
    cache.set(key, (user.pk, _fingerprint(user)), seconds)
    return user


def deactivated_account(username: str, password: str):
    """The deactivated account whose own password this is, or None.

    For a service that answers it apart from a wrong password (Gitea's 403), asked only
    once check_password_cached found no active account, so the throttle has counted the
    try. A directory account has no local password: it stays a plain failure.
    """
    if not username or not password or "\x00" in username:
        return None
    model = get_user_model()
    user = model._default_manager.filter(
        **{model.USERNAME_FIELD: username}, is_active=False
    ).first()
    if user is None or not user.has_usable_password() or not user.check_password(password):
        return None
    return user


def hash_token(token: str) -> str:
    """Index key of an API token: tokens are stored and looked up by this digest only."""
    return hashlib.sha256(token.encode()).hexdigest()
