"""Throttling of failed sign-ins, shared by every process through the Django cache (the
`signin` cache where settings have one: the embedded default's, which culls no live
counter, config.file_cache; else the default cache, Redis).

Every password check goes through `django.contrib.auth.authenticate` (Basic credentials
of all three services, the registry's token endpoint, git over HTTP, the login pages).
`ThrottleBackend`, first in AUTHENTICATION_BACKENDS, refuses to check while the caller is
throttled; each failed check (Django's `user_login_failed`) is counted twice, for the
account from that client address and for the address alone. Past either limit within a
window, sign-ins are refused with SignInThrottled (429 with Retry-After in each service's
error format) until the window ends. A correct password costs two cache reads.
"""

import hashlib
import hmac
import math
import time

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import caches
from django.dispatch import receiver
from rest_framework.exceptions import Throttled

# Prefix of the counters' cache keys.
NAMESPACE = "signin-fail"


class SignInThrottled(Throttled):
    """Too many failed sign-ins; retry after `retry_after` seconds. DRF's Throttled, so that
    the APIs answer it in their error format wherever authentication runs."""

    def __init__(self, retry_after: int):
        super().__init__(retry_after, detail="Too many failed sign-in attempts.")
        self.retry_after = retry_after


def client_address(request) -> str:
    """The peer's address; behind TRUSTED_PROXY_COUNT proxies, the address the outermost of
    them saw (X-Forwarded-For is read from the right, so a client cannot forge it)."""
    meta = getattr(request, "META", None) or {}
    hops = settings.TRUSTED_PROXY_COUNT
    forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if hops and forwarded:
        return forwarded[-min(hops, len(forwarded))]
    return meta.get("REMOTE_ADDR") or "-"


def _counters(request, username: str) -> list[tuple[str, int]]:
    """(cache key, limit) of the two counters a sign-in of `username` here is judged by.

    Keyed digests: neither the username nor the address is written to the cache in clear.
    """
    address = client_address(request)
    account = hmac.new(
        settings.SECRET_KEY.encode(),
        f"{username.strip().lower()}\0{address}".encode(),
        hashlib.sha256,
    ).hexdigest()
    where = hashlib.sha256(address.encode()).hexdigest()
    return [
        (f"{NAMESPACE}:a:{account}", settings.SIGNIN_THROTTLE_ACCOUNT_FAILURES),
        (f"{NAMESPACE}:ip:{where}", settings.SIGNIN_THROTTLE_ADDRESS_FAILURES),
    ]


# A counter is two entries: `key` holds the time of the window's first failure (the window
# is anchored there, not on the clock, so a burst cannot straddle two windows) and
# `key:n` the failures; both expire when the window ends.


def _cache():
    return caches["signin" if "signin" in settings.CACHES else "default"]


def check(request, username: str, also: str | None = None):
    """Raise SignInThrottled when this account from this address, or this address, has
    failed too often in its current window. Returns the default cache's value under the
    key `also` (None without one): read in the same round trip when the counters are in
    the default cache too (Redis), which saves a caller reading its own entry next one."""
    counters = _counters(request, username)
    names = [name for key, _ in counters for name in (key, f"{key}:n")]
    store = _cache()
    together = also is not None and store is caches["default"]
    values = store.get_many([*names, also] if together else names)
    now = time.time()
    for key, limit in counters:
        started = values.get(key)
        if started is not None and values.get(f"{key}:n", 0) >= limit:
            window_end = started + settings.SIGNIN_THROTTLE_WINDOW
            raise SignInThrottled(max(1, math.ceil(window_end - now)))
    if also is None:
        return None
    return values.get(also) if together else caches["default"].get(also)


def _count(key: str) -> None:
    cache = _cache()
    window = settings.SIGNIN_THROTTLE_WINDOW
    now = time.time()
    started = now if cache.add(key, now, window) else (cache.get(key) or now)
    remaining = max(1, math.ceil(started + window - now))
    # Started at 0 by whichever failure comes first, then every failure adds one (both
    # atomic): failures counted at once all count.
    cache.add(f"{key}:n", 0, remaining)
    try:
        cache.incr(f"{key}:n")
    except ValueError:  # the count expired before its anchor
        cache.set(f"{key}:n", 1, remaining)
    # Some caches' incr rewrites the entry with the default timeout: the window's end wins.
    cache.touch(f"{key}:n", remaining)


def record_failure(request, username: str) -> None:
    for key, _ in _counters(request, username):
        _count(key)


@receiver(user_login_failed)
def _failed(sender, credentials, request=None, **kwargs):
    record_failure(request, str(credentials.get("username") or ""))


class ThrottleBackend:
    """Checks no password: refuses (SignInThrottled) before the real backends would. It
    signs nobody in, so it has no `get_user` (sessions and force_login skip it)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is not None:
            check(request, username)
        return None
