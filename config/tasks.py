import os
import time

from celery import shared_task
from django.core.cache import cache

HEARTBEAT_KEY = "worker-heartbeat"
# When a worker last ran the tick beat sends (the admin dashboard shows its age).
BEAT_KEY = "beat-last-tick"


@shared_task(name="config.heartbeat", ignore_result=True)
def heartbeat(requested_by: str = "-") -> None:
    """Proof that a worker consumes the broker: the health check sends this, reads it back."""
    cache.set(
        HEARTBEAT_KEY,
        {"at": time.time(), "pid": os.getpid(), "requested_by": requested_by},
        timeout=None,
    )


@shared_task(name="config.beat_tick", ignore_result=True)
def beat_tick() -> None:
    """Sent by beat on a schedule: proves beat is sending and a worker is consuming."""
    cache.set(BEAT_KEY, time.time(), timeout=None)
    heartbeat("beat")
