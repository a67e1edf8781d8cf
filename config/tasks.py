import os
import time

from celery import shared_task
from django.core.cache import cache

HEARTBEAT_KEY = "worker-heartbeat"


@shared_task(name="config.heartbeat", ignore_result=True)
def heartbeat(requested_by: str = "-") -> None:
    """Proof that a worker consumes the broker: the health check sends this, reads it back."""
    cache.set(
        HEARTBEAT_KEY,
        {"at": time.time(), "pid": os.getpid(), "requested_by": requested_by},
        timeout=None,
    )
