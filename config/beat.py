"""One Celery beat sends the periodic tasks, however many are started.

Every beat process (`celery -A config beat`, settings `CELERY_BEAT_SCHEDULER`) must hold a
lease before it sends anything: with Redis a key (`SET NX PX`, renewed by its holder, on
Redis's clock), on the embedded default an exclusive `flock` on `$DATA_DIR/beat.lock`
(one machine). The others stand by, checking the lease, and one of them takes over when
the holder stops (at once when it stops cleanly, within `BEAT_LEASE_SECONDS` when it dies),
so every node of a deployment can run the same processes.
"""

import contextlib
import fcntl
import logging
import os
import socket
import time
import uuid
from pathlib import Path

from celery.beat import PersistentScheduler
from django.conf import settings

logger = logging.getLogger("celery.beat")

LEASE_KEY = "beat-lease"

# Renew the key if it is ours, else take it if it is free: 1 when we hold it afterwards.
HOLD_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 1
end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
return 0
"""
RELEASE_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


class RedisLease:
    def __init__(self, url: str, seconds: float):
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.milliseconds = int(seconds * 1000)

    def hold(self) -> bool:
        held = self.client.eval(HOLD_SCRIPT, 1, LEASE_KEY, self.token, self.milliseconds)
        return bool(held)

    def holder(self) -> str:
        value = self.client.get(LEASE_KEY)
        return value.decode() if value else "nobody"

    def release(self) -> None:
        self.client.eval(RELEASE_SCRIPT, 1, LEASE_KEY, self.token)


class FileLease:
    """The kernel's lock: released the moment the holding process ends, however it ends."""

    def __init__(self, path):
        self.path = path
        self.handle = None

    def hold(self) -> bool:
        if self.handle is not None:
            return True
        # Held open for as long as the lease is ours: closing it releases the lock.
        handle = open(self.path, "a+")  # noqa: SIM115
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        handle.truncate(0)
        handle.write(f"{socket.gethostname()}:{os.getpid()}\n")
        handle.flush()
        self.handle = handle
        return True

    def holder(self) -> str:
        with contextlib.suppress(OSError):
            return Path(self.path).read_text().strip() or "nobody"
        return "nobody"

    def release(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def make_lease():
    if settings.REDIS_URL:
        return RedisLease(settings.REDIS_URL, settings.BEAT_LEASE_SECONDS)
    return FileLease(settings.DATA_DIR / "beat.lock")


class SingleBeatScheduler(PersistentScheduler):
    """Celery's own scheduler (schedule file included), ticking only under the lease."""

    def __init__(self, *args, **kwargs):
        self.lease = make_lease()
        self.renew_every = settings.BEAT_LEASE_SECONDS / 3
        # A standby asks often (one Redis call a second): a clean stop hands over at once.
        self.standby_poll = min(self.renew_every, 1.0)
        self.renewed_at = None  # monotonic time of the last successful hold
        self.holding = None  # as of the last tick; None before the first
        super().__init__(*args, **kwargs)

    def _hold(self) -> bool:
        now = time.monotonic()
        if self.renewed_at is not None and now - self.renewed_at < self.renew_every:
            return True
        try:
            held = self.lease.hold()
        except Exception as exc:
            logger.warning("beat lease unreachable (%s): sending nothing", exc.__class__.__name__)
            held = False
        self.renewed_at = now if held else None
        return held

    def tick(self, *args, **kwargs):
        held = self._hold()
        if held != self.holding:
            self.holding = held
            if held:
                logger.info("beat holds the lease: sending the periodic tasks")
            else:
                holder = "another beat"
                with contextlib.suppress(Exception):
                    holder = self.lease.holder()
                logger.info("beat standing by: the lease is held by %s", holder)
        if not held:
            return self.standby_poll
        return min(super().tick(*args, **kwargs), self.renew_every)

    def close(self):
        try:
            super().close()
        finally:
            with contextlib.suppress(Exception):
                self.lease.release()
