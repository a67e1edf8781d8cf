"""Pull records (`pull_time`, `pull_count`, the `pull_artifact` audit entry), written after
the manifest is served: a pull never waits for a database write (Harbor records pulls
asynchronously too).

Each process queues its pulls; one thread writes them in batches, REGISTRY_PULL_RECORD_MS
after the first of a batch (a few statements per batch, whatever its size). Process exit
(SIGTERM to gunicorn, Ctrl-C of `make run`) writes what is queued; a killed process loses
the pulls of its last REGISTRY_PULL_RECORD_MS at most. A batch that fails (database down)
is retried a second later, up to MAX_QUEUED pulls.
"""

import atexit
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime

from django import db
from django.conf import settings
from django.db import connection, transaction

from registry import configuration
from registry.models import Artifact, AuditLog, Repository, Tag
from registry.services import audit

logger = logging.getLogger("registry.distribution")

RETRY_SECONDS = 1.0
MAX_QUEUED = 100_000


@dataclass(frozen=True)
class Pull:
    project_id: int
    repository_id: int
    repository_name: str
    artifact_id: int
    digest: str
    tag: str | None
    username: str
    time: datetime


_queued: list[Pull] = []
_queue_lock = threading.Lock()
# One batch at a time: `flush` waits for the batch being written, then writes the rest.
_writing = threading.Lock()
_wake = threading.Event()
_writer_pid = 0


def record(pull: Pull) -> None:
    """Queue a pull; the writer thread stores it shortly."""
    global _writer_pid
    with _queue_lock:
        _queued.append(pull)
        if _writer_pid != os.getpid():  # first pull of this process (or of a forked child)
            _writer_pid = os.getpid()
            threading.Thread(target=_write_forever, name="pull-records", daemon=True).start()
    _wake.set()


def flush() -> None:
    """Store every pull queued so far (after the batch being written, if any)."""
    with _writing:
        _write_queued()


def _write_queued() -> None:
    with _queue_lock:
        batch = _queued[:]
        _queued.clear()
    if not batch:
        return
    try:
        write(batch)
    except Exception:
        logger.exception("pull records not written; %d will be retried", len(batch))
        with _queue_lock:
            _queued[:0] = batch[: max(MAX_QUEUED - len(_queued), 0)]
        raise


def _write_forever() -> None:
    while True:
        _wake.wait()
        time.sleep(settings.REGISTRY_PULL_RECORD_MS / 1000)  # pulls arriving meanwhile join in
        _wake.clear()
        failed = False
        with _writing:
            try:
                _write_queued()
            except Exception:
                failed = True
            finally:
                # A connection per batch: none held between batches (nor when the process
                # or the test database goes away).
                db.connections.close_all()
        if failed:
            time.sleep(RETRY_SECONDS)
            _wake.set()


atexit.register(flush)


def write(batch: list[Pull]) -> None:
    """The batch's audit entries, the latest pull time of each artifact and tag pulled,
    and each repository's count, in one transaction."""
    config = configuration.values()
    logs = [
        audit.entry(
            pull.project_id,
            "pull",
            "artifact",
            audit.artifact_resource(pull.repository_name, pull.digest, pull.tag),
            pull.username,
            config,
        )
        for pull in batch
    ]
    for log, pull in zip(logs, batch, strict=True):
        if log is not None:
            log.op_time = pull.time
    artifacts: dict[int, datetime] = {}
    tags: dict[tuple[int, str], datetime] = {}
    repositories: dict[int, tuple[int, datetime]] = {}
    for pull in batch:
        artifacts[pull.artifact_id] = max(pull.time, artifacts.get(pull.artifact_id, pull.time))
        if pull.tag:
            key = (pull.repository_id, pull.tag)
            tags[key] = max(pull.time, tags.get(key, pull.time))
        count, last = repositories.get(pull.repository_id, (0, pull.time))
        repositories[pull.repository_id] = (count + 1, max(last, pull.time))
    at = connection.ops.adapt_datetimefield_value
    tag_times = [(at(when), at(when), pk, name) for (pk, name), when in tags.items()]
    audit_rows = [
        (
            log.project_id,
            log.operation,
            log.resource_type,
            log.resource,
            log.username,
            at(log.op_time),
        )
        for log in logs
        if log is not None
    ]
    with transaction.atomic(), connection.cursor() as cursor:
        if audit_rows:
            # One statement for the batch, without the ORM compiling every row (bulk_create
            # took ~45 us per pull of the web process's CPU).
            cursor.executemany(INSERT_AUDIT_LOG, audit_rows)
        if config["pull_count_update_disable"]:
            return
        # Batches of several processes may land out of order: a pull time never goes back.
        cursor.executemany(
            SET_PULL_TIME.format(table=Artifact._meta.db_table, where="id = %s"),
            [(at(when), at(when), pk) for pk, when in artifacts.items()],
        )
        if tag_times:
            cursor.executemany(
                SET_PULL_TIME.format(
                    table=Tag._meta.db_table, where="repository_id = %s AND name = %s"
                ),
                tag_times,
            )
        # Counted in the database: other processes' batches add to the same rows.
        cursor.executemany(
            f"UPDATE {Repository._meta.db_table} SET pull_count = pull_count + %s,"
            " update_time = %s WHERE id = %s",
            [(count, at(when), pk) for pk, (count, when) in repositories.items()],
        )


INSERT_AUDIT_LOG = (
    f"INSERT INTO {AuditLog._meta.db_table}"
    " (project_id, operation, resource_type, resource, username, op_time)"
    " VALUES (%s, %s, %s, %s, %s, %s)"
)
SET_PULL_TIME = (
    "UPDATE {table} SET pull_time = CASE WHEN pull_time IS NULL OR pull_time < %s"
    " THEN %s ELSE pull_time END WHERE {where}"
)
