import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

# Headless Chromium for the browser tests of several packages.
from tests.browser import chromium, page  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


BACKEND = os.environ.get("TEST_BACKEND", "postgres")
ONLY_MARKERS = {"postgres_only": "postgres", "sqlite_only": "sqlite"}


def pytest_configure(config):
    # Hashing cost is not what the tests measure; the server's default stays PBKDF2.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if BACKEND == "sqlite":
        # A file, not Django's in-memory test database: the worker and gunicorn processes
        # the tests start open it too.
        database = settings.DATABASES["default"]
        database.setdefault("TEST", {})["NAME"] = str(Path(settings.DATA_DIR) / "test.sqlite3")


def pytest_collection_modifyitems(config, items):
    """A test marked for one backend is reported as skipped on the other, with its reason."""
    for item in items:
        for name, backend in ONLY_MARKERS.items():
            marker = item.get_closest_marker(name)
            if marker is None or backend == BACKEND:
                continue
            reason = marker.kwargs.get("reason") or (marker.args and marker.args[0])
            if not reason:
                raise pytest.UsageError(f"{item.nodeid}: @{name} needs a reason")
            item.add_marker(pytest.mark.skip(reason=f"{name}: {reason}"))


@pytest.fixture(autouse=True)
def _forget_state_keyed_by_ids():
    """On SQLite a rolled-back test's ids are given again to the next test (the sequence
    table rolls back with the test's transaction; PostgreSQL's sequences never repeat an
    id): what is kept outside the database under ids, the rate-limit buckets and the
    cached credentials, is forgotten between tests so that no test inherits another's."""
    yield
    if BACKEND == "sqlite":
        from django.core.cache import cache

        cache.clear()
        for bucket in (Path(settings.DATA_DIR) / "ratelimit").glob("*"):
            bucket.unlink(missing_ok=True)


def database_url() -> str:
    """DATABASE_URL of the test database, for the server processes tests start."""
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{database['NAME']}"
    return f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


@pytest.fixture(autouse=True)
def fresh_signin_counters(monkeypatch):
    """Failed sign-ins are counted in the cache the whole session shares: each test starts
    with none, so that the wrong passwords of earlier tests do not throttle its own."""
    from config import signin_throttle

    monkeypatch.setattr(signin_throttle, "NAMESPACE", f"signin-fail-{uuid.uuid4().hex}")


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
    """A real Celery worker process on the test database and the test broker (Redis, or
    the filesystem broker under DATA_DIR on SQLite).

    Tests that use it must be transactional (`django_db(transaction=True)`) so the worker
    sees their rows.
    """
    from django.core.cache import cache

    from config.tasks import HEARTBEAT_KEY, heartbeat

    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
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


class BlobStorage:
    """The registry's blob storage a test runs on: `filesystem` (the default) or `s3` (a
    fresh bucket of the test S3 server); `env` is what a server process needs for it."""

    def __init__(self, kind: str, env: dict):
        self.kind = kind
        self.env = env

    def blob_objects(self, digest: str) -> list[str]:
        """The objects holding the digest's bytes, whatever their generation: names
        `blobs/<alg>/<ab>/<hex>` (from before generations) or `blobs/<alg>/<ab>/<hex>-<g>`."""
        algorithm, hexpart = digest.split(":")
        folder = f"blobs/{algorithm}/{hexpart[:2]}"
        if self.kind == "filesystem":
            place = Path(settings.STORAGES["registry"]["OPTIONS"]["location"]) / folder
            names = [path.name for path in place.glob(f"{hexpart}*")]
        else:
            from tests.services.s3 import s3_client

            listed = s3_client().list_objects_v2(
                Bucket=self.env["S3_BUCKET"], Prefix=f"registry/{folder}/{hexpart}"
            )
            names = [item["Key"].rsplit("/", 1)[1] for item in listed.get("Contents", [])]
        return sorted(
            f"{folder}/{name}"
            for name in names
            if name == hexpart or name.startswith(hexpart + "-")
        )

    def blob_stored(self, digest: str) -> bool:
        """Whether an object holds the blob's bytes."""
        return bool(self.blob_objects(digest))

    def stage_stray_bytes(self, upload_id, data: bytes) -> None:
        """What a request that died after staging bytes, before recording them, leaves:
        bytes at the end of the staged file; an object beside the recorded segments."""
        if self.kind == "filesystem":
            with (Path(settings.REGISTRY_UPLOADS_DIR) / str(upload_id)).open("ab") as staged:
                staged.write(data)
            return
        from tests.services.s3 import s3_client

        for name in ("0000000000000000-stray", "9999999999999999-stray"):
            s3_client().put_object(
                Bucket=self.env["S3_BUCKET"],
                Key=f"registry/_uploads/{upload_id}/{name}",
                Body=data,
            )

    def staged_bytes(self, upload_id) -> int | None:
        """What an upload session has staged (None: no staging at all)."""
        if self.kind == "filesystem":
            path = Path(settings.REGISTRY_UPLOADS_DIR) / str(upload_id)
            return path.stat().st_size if path.exists() else None
        from tests.services.s3 import s3_client

        listed = s3_client().list_objects_v2(
            Bucket=self.env["S3_BUCKET"], Prefix=f"registry/_uploads/{upload_id}/"
        )
        items = listed.get("Contents", [])
        return sum(item["Size"] for item in items) if items else None


def pytest_generate_tests(metafunc):
    """A test marked `both_storages` runs once per blob storage kind, on both backends."""
    if metafunc.definition.get_closest_marker("both_storages") is not None:
        metafunc.parametrize("blob_storage", ["filesystem", "s3"], indirect=True)


@pytest.fixture
def s3_storage(settings):
    """Blobs and store images in a fresh bucket of the test S3 server; the server env."""
    from config.object_storage import s3_storages
    from tests.services.s3 import s3_settings_env

    env = s3_settings_env()
    settings.STORAGES = {
        **settings.STORAGES,
        **s3_storages(
            env["S3_BUCKET"],
            endpoint_url=env["S3_ENDPOINT_URL"],
            access_key=env["S3_ACCESS_KEY_ID"],
            secret_key=env["S3_SECRET_ACCESS_KEY"],
            region=env["S3_REGION"],
        ),
    }
    return env


@pytest.fixture(autouse=True)
def blob_storage(request):
    kind = getattr(request, "param", "filesystem")
    if kind == "s3":
        return BlobStorage(kind, request.getfixturevalue("s3_storage"))
    return BlobStorage(kind, {})
