"""Credential checks shared by the services' authentication classes.

Clients send Basic credentials on every request and a password hash costs ~0.2 s, so a
verified username/password pair is remembered for a short time under a keyed digest.
The cached entry also holds a fingerprint of the account's password hash and state, so
a password change or a deactivation drops it at once.
"""

import base64
import binascii
import hashlib
import hmac

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.core.cache import cache


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
    except (binascii.Error, UnicodeDecodeError):
        return None
    username, sep, password = decoded.partition(":")
    if not sep:
        return None
    return username, password


def check_password_cached(request, username: str, password: str):
    """The active user with these credentials, or None."""
    if not username or not password:
        return None
    key = "basic-auth:" + _digest(username, password)
    cached = cache.get(key)
    if cached:
        user_id, fingerprint = cached
        user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
        if user is not None and hmac.compare_digest(account_fingerprint(user), fingerprint):
            return user
        cache.delete(key)
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        return None
    cache.set(key, (user.pk, account_fingerprint(user)), settings.BASIC_AUTH_CACHE_SECONDS)
    return user


def hash_token(token: str) -> str:
    """Index key of an API token: tokens are stored and looked up by this digest only."""
    return hashlib.sha256(token.encode()).hexdigest()
