"""Telling the request that waits on a migration that the worker is done with it.

With Redis the worker pushes onto a list named after the task once its last transaction
has committed, and the waiting request blocks on that list (BLPOP), so the answer leaves
as soon as the work is done instead of at the next poll. The task record stays the truth:
the waiter reads it after every wake-up, and re-reads it at least every CHECK_SECONDS in
case a notice is lost. Without Redis (the embedded default) the waiter polls the record.
"""

import logging
import time
from functools import cache

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

KEY = "codehost:migration-done:{}"
# A notice nobody collected (the waiter gave up) expires on its own.
NOTICE_TTL_SECONDS = 120
CHECK_SECONDS = 1.0


@cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url)


def announce(task_id: int, status: str) -> None:
    """Push the task's final status for the request waiting on it."""
    if not settings.REDIS_URL:
        return
    key = KEY.format(task_id)
    try:
        with _client(settings.REDIS_URL).pipeline() as pipe:
            pipe.lpush(key, status).expire(key, NOTICE_TTL_SECONDS).execute()
    except redis.RedisError as error:
        # The waiter still finds the result at its next check of the record.
        logger.warning("could not announce the end of migration %s: %s", task_id, error)


def wait(task_id: int, seconds: float, waited: float) -> str | None:
    """Block until the task's notice arrives (its status) or `seconds` pass (None; polling
    pace without Redis: prompt at first, as most migrations take seconds, then slower)."""
    if settings.REDIS_URL:
        try:
            notice = _client(settings.REDIS_URL).blpop([KEY.format(task_id)], timeout=seconds)
            return notice[1].decode() if notice else None
        except redis.RedisError as error:
            logger.warning("waiting on migration %s: %s", task_id, error)
    time.sleep(min(seconds, 0.02 if waited < 5 else 0.25))
    return None
