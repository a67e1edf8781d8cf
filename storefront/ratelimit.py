"""Leaky bucket per store and app: each request adds one drop, the bucket leaks at a
steady rate, and a request that would overflow it is refused (429).

Exact across every web process and thread: with Redis the whole read-leak-add-write
step is one Lua script (atomic on the server, clocked by the server's TIME). Without
Redis (the embedded default, one machine) each bucket is a small file under
`$DATA_DIR/ratelimit/`, read and rewritten under an exclusive `flock`: a few system
calls, where a database row would make every API read a write (SQLite has one writer).

A bucket holds at most its size: one filled under a larger STOREFRONT_RATE_LIMIT_SIZE
counts as full, not as hours of drops to leak.
"""

import fcntl
import math
import os
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import redis
from django.conf import settings

LEAK_SCRIPT = """
local size = tonumber(ARGV[1])
local leak = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'level', 'at')
local level = tonumber(state[1]) or 0
local at = tonumber(state[2]) or now
level = math.max(0, math.min(level, size) - math.max(0, now - at) * leak)
local allowed = 0
if level + 1 <= size then
  level = level + 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'level', tostring(level), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(level / leak * 1000) + 1000)
return {allowed, tostring(level)}
"""


@dataclass(frozen=True)
class BucketState:
    allowed: bool
    level: float
    size: int
    leak: float

    @property
    def headers(self) -> dict[str, str]:
        return {
            "X-Rate-Limit-Limit": str(self.size),
            "X-Rate-Limit-Remaining": str(max(math.floor(self.size - self.level), 0)),
            "X-Rate-Limit-Reset": str(math.ceil(self.level / self.leak * 1000)),
        }


def bucket_key(store_id: int, app_id: int) -> str:
    return f"storefront:bucket:{store_id}:{app_id}"


def take(store_id: int, app_id: int) -> BucketState:
    """Add one request to the store+app bucket if it fits."""
    size = settings.STOREFRONT_RATE_LIMIT_SIZE
    leak = max(settings.STOREFRONT_RATE_LIMIT_LEAK, 0.001)
    key = bucket_key(store_id, app_id)
    if settings.REDIS_URL:
        allowed, level = _take_redis(settings.REDIS_URL, key, size, leak)
    else:
        allowed, level = _take_file(bucket_file(store_id, app_id), size, leak)
    return BucketState(allowed=allowed, level=level, size=size, leak=leak)


@cache
def _leak_script(url: str):
    return redis.Redis.from_url(url).register_script(LEAK_SCRIPT)


def _take_redis(url: str, key: str, size: int, leak: float) -> tuple[bool, float]:
    allowed, level = _leak_script(url)(keys=[key], args=[size, leak])
    return bool(allowed), float(level)


def bucket_file(store_id: int, app_id: int) -> Path:
    return _bucket_dir(str(settings.DATA_DIR)) / f"{int(store_id)}-{int(app_id)}"


@cache
def _bucket_dir(data_dir: str) -> Path:
    directory = Path(data_dir) / "ratelimit"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


# One fixed-size record "<level> <unix time>", rewritten in place.
RECORD_BYTES = 64


def _take_file(path: Path, size: int, leak: float) -> tuple[bool, float]:
    # Each call opens its own descriptor, so flock excludes other threads as well as
    # other processes; closing the descriptor releases the lock.
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        # Read the clock only once the bucket is ours, so updates are in time order.
        now = time.time()
        level, at = _parse(os.pread(descriptor, RECORD_BYTES, 0), now)
        level = max(min(level, size) - max(now - at, 0.0) * leak, 0.0)
        allowed = level + 1 <= size
        if allowed:
            level += 1
        record = f"{level!r} {max(now, at)!r}".encode().ljust(RECORD_BYTES)
        os.pwrite(descriptor, record, 0)
    finally:
        os.close(descriptor)
    return allowed, level


def _parse(record: bytes, now: float) -> tuple[float, float]:
    """Level and time of a record; an empty (new) or torn record is an empty bucket."""
    try:
        level, at = record.split()
        return float(level), float(at)
    except ValueError:
        return 0.0, now
