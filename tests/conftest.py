import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

# Headless Chromium for the browser tests of several packages.
from tests.browser import chromium, page  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    # Hashing cost is not what the tests measure; the server's default stays PBKDF2.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def wait_until(predicate, seconds: float = 30, interval: float = 0.1, message: str = "condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    raise AssertionError(f"timed out after {seconds}s waiting for {message}")


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker):
    """A real Celery worker process on the test database and the test Redis broker.

    Tests that use it must be transactional (`django_db(transaction=True)`) so the worker
    sees their rows.
    """
    from django.core.cache import cache

    from config.tasks import HEARTBEAT_KEY, heartbeat

    database = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
        ),
        # Storefront webhooks: loopback receivers, and retries and timeouts of a second.
        "STOREFRONT_WEBHOOK_ALLOW_INSECURE": "true",
        "STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS": "true",
        "STOREFRONT_WEBHOOK_RETRY_SCHEDULE": "1,1,1",
        "STOREFRONT_WEBHOOK_TIMEOUT": "1",
        # Code hosting re-checks remote addresses in the worker: loopback stand-ins are
        # allowed there, and 127.0.0.2 stands for a refused address.
        "CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS": "true",
        "CODEHOST_MIGRATIONS_BLOCKED_DOMAINS": "127.0.0.2",
    }
    log_path = Path(settings.DATA_DIR) / "celery-worker.log"
    log = log_path.open("wb")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "default,git,webhooks",
            "--concurrency",
            "2",
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        cache.delete(HEARTBEAT_KEY)
        heartbeat.delay("test-setup")

        def answered():
            if worker.poll() is not None:
                raise AssertionError(f"celery worker exited:\n{log_path.read_text()[-3000:]}")
            return cache.get(HEARTBEAT_KEY)

        wait_until(answered, 60, message="the celery worker to answer a heartbeat")
        yield worker
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()
