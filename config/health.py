"""Checks of the real components behind the services. Each returns None or an error text.

`/api/v2.0/health` (Harbor's format) reports them all; `/readyz` answers a load balancer
from the ones a web process needs to serve (`READINESS`); `/livez` touches none.
"""

import threading
import time
import uuid

from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import connection

from config.celery import app as celery_app
from config.logging import current_request_id
from config.tasks import HEARTBEAT_KEY, heartbeat

HEARTBEAT_FRESH_SECONDS = 30
HEARTBEAT_WAIT_SECONDS = 3.0


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return f"failed to check health: {exc.__class__.__name__}"
    return None


def check_cache() -> str | None:
    probe = uuid.uuid4().hex
    try:
        cache.set("health-probe", probe, 30)
        if cache.get("health-probe") != probe:
            return "failed to check health: cache did not return the value written"
    except Exception as exc:
        return f"failed to check health: {exc.__class__.__name__}"
    return None


def check_broker() -> str | None:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return f"failed to check health: broker unreachable ({exc.__class__.__name__})"
    return None


def _fresh_heartbeat() -> bool:
    beat = cache.get(HEARTBEAT_KEY)
    return bool(beat) and time.time() - beat["at"] < HEARTBEAT_FRESH_SECONDS


def check_worker() -> str | None:
    """A worker answered a heartbeat task recently; if not, send one and wait briefly."""
    broker_error = check_broker()
    if broker_error:
        return broker_error
    try:
        if _fresh_heartbeat():
            return None
        if cache.add("heartbeat-requested", 1, HEARTBEAT_FRESH_SECONDS // 3):
            heartbeat.apply_async(args=[current_request_id.get()], queue="default")
        deadline = time.monotonic() + HEARTBEAT_WAIT_SECONDS
        while time.monotonic() < deadline:
            if _fresh_heartbeat():
                return None
            time.sleep(0.1)
    except Exception as exc:
        return f"failed to check health: {exc.__class__.__name__}"
    return f"failed to check health: no worker heartbeat in the last {HEARTBEAT_FRESH_SECONDS}s"


# With no worker a check waits HEARTBEAT_WAIT_SECONDS and the probe is anonymous: a process
# checks at most this often, one thread at a time, and the others answer from the last
# verdict meanwhile (callers must not be able to hold a web thread each for seconds).
WORKER_CHECK_SECONDS = 10.0
_worker_check_lock = threading.Lock()
_last_worker_check: tuple[float, str | None] = (float("-inf"), None)


def check_worker_recently() -> str | None:
    global _last_worker_check
    checked_at, error = _last_worker_check
    if time.monotonic() - checked_at < WORKER_CHECK_SECONDS:
        return error
    # Only a process's very first check has no verdict to give while another thread checks.
    if not _worker_check_lock.acquire(blocking=checked_at == float("-inf")):
        return error
    try:
        checked_at, error = _last_worker_check
        if time.monotonic() - checked_at >= WORKER_CHECK_SECONDS:
            error = check_worker()
            _last_worker_check = (time.monotonic(), error)
    finally:
        _worker_check_lock.release()
    return error


# The storages the services write: registry blobs and store images (Django's default).
STORAGE_ALIASES = ("registry", "default")


def check_storage() -> str | None:
    """Each storage takes a small file and gives it up again (shared storage mounted,
    object storage reachable with working credentials)."""
    for alias in STORAGE_ALIASES:
        storage = storages[alias]
        try:
            name = storage.save(f"health/{uuid.uuid4().hex}", ContentFile(b"ok"))
            storage.delete(name)
        except Exception as exc:
            return (
                f"failed to check health: {alias} storage not writable ({exc.__class__.__name__})"
            )
    return None


# The probes are anonymous and each storage check writes to the storages (objects in a
# bucket, on S3): a process checks them at most this often and answers from the last check.
STORAGE_CHECK_SECONDS = 10.0
_last_storage_check: tuple[float, str | None] = (float("-inf"), None)


def check_storage_recently() -> str | None:
    global _last_storage_check
    checked_at, error = _last_storage_check
    now = time.monotonic()
    if now - checked_at >= STORAGE_CHECK_SECONDS:
        error = check_storage()
        _last_storage_check = (now, error)
    return error


# What a web process needs to answer requests; the worker heartbeat is not among them (a
# web node serves without a worker of its own, and the heartbeat waits seconds).
READINESS = {
    "database": check_database,
    "cache": check_cache,
    "broker": check_broker,
    "storage": check_storage_recently,
}
