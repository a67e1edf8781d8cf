"""How many migrations may be waited on at once.

POST /repos/migrate holds its web thread until the worker is done with the clone (up to
CODEHOST_MIGRATION_WAIT_SECONDS), so a few dozen slow migrations would hold every thread
of the web server. Beyond CODEHOST_MIGRATIONS_MAX_WAITING_PER_USER migrations in flight
for one user the answer is 429, beyond CODEHOST_MIGRATIONS_MAX_WAITING in all 503, both
with Retry-After (0 lifts a cap).

In flight means queued or running: each such task has exactly one request waiting on it
(a waiter that gives up fails its task, the reaper fails those whose waiter died). The
count and the new task are made under one lock, so concurrent requests cannot all pass a
count taken before any of them inserted: PostgreSQL's transaction-level advisory lock;
SQLite's IMMEDIATE transactions already serialize every writer.
"""

from django.conf import settings
from django.db import connection
from django.db.models import Count, Q

from codehost.errors import CallerBusy, ServerBusy
from codehost.models import MigrationTask

# Most migrations take seconds; a refused caller comes back after this.
RETRY_AFTER_SECONDS = 30
# The advisory lock's key (any constant of our own; "code" in ASCII).
LOCK_KEY = 0x636F6465
IN_FLIGHT = (MigrationTask.Status.QUEUED, MigrationTask.Status.RUNNING)


def claim_waiting_slot(doer) -> None:
    """Inside the transaction that creates the task: refuse when a cap is reached."""
    per_user = settings.CODEHOST_MIGRATIONS_MAX_WAITING_PER_USER
    total = settings.CODEHOST_MIGRATIONS_MAX_WAITING
    if not (per_user or total):
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
    counts = MigrationTask.objects.filter(status__in=IN_FLIGHT).aggregate(
        everyone=Count("id"), mine=Count("id", filter=Q(doer=doer))
    )
    if per_user and counts["mine"] >= per_user:
        raise CallerBusy(
            f"too many migrations in progress for this user (at most {per_user}), retry later",
            RETRY_AFTER_SECONDS,
        )
    if total and counts["everyone"] >= total:
        raise ServerBusy(
            f"too many migrations in progress on this server (at most {total}), retry later",
            RETRY_AFTER_SECONDS,
        )
