"""Delivery of webhook notifications: at least once, in batches, every attempt recorded.

A task gets the ids of a few deliveries (those of one event, or retries due together).
It claims the due ones in one transaction (row locks, a short lease on each, one attempt
row each), POSTs them in parallel outside any transaction (`storefront.webhook_posts`), then
records every result in one transaction and schedules the retries. A task lost with its
worker is redelivered by the broker (acks_late + reject_on_worker_lost); when a whole
worker died, the periodic `requeue_lost` queues its deliveries again. Running a batch
twice is harmless: the claim skips what is done, leased or not yet due.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from storefront import webhook_posts
from storefront.models import SUSPENSION_EVENTS, Delivery, DeliveryAttempt

STALE_ATTEMPT = "no result: the worker stopped during this attempt"
# Sent once the transaction that made deliveries due has committed, with their `ids` and
# `when` they are due (None: now). `storefront.tasks` answers it by queueing their tasks:
# tasks call these services, so the services cannot import tasks back.
deliveries_due = Signal()

# --- retry schedule ------------------------------------------------------------------


def tiendanube_waits() -> list[float]:
    """Seconds to wait before each retry: 18 attempts in all, within 48 hours.

    Tiendanube: one retry right after the failure, then about 5, 10 and 15 minutes, then
    the previous wait x1.4. Grown unchecked, the 17th and 18th attempts would land after
    48 hours (at about 49 and 69 hours); those two waits share the time left instead.
    """
    waits = [0.0, 300.0, 600.0, 900.0]
    while len(waits) < 17:
        waits.append(waits[-1] * 1.4)
    limit = 48 * 3600.0
    for index in range(len(waits)):
        if sum(waits[: index + 1]) > limit:
            left = limit - sum(waits[:index])
            share = left / (len(waits) - index)
            waits[index:] = [share] * (len(waits) - index)
            break
    return waits


def retry_waits() -> list[float]:
    return list(settings.STOREFRONT_WEBHOOK_RETRY_SCHEDULE) or tiendanube_waits()


def lease_seconds() -> float:
    """How long a started attempt keeps others off its delivery: its limit plus slack."""
    return webhook_posts.attempt_limit() + 2


# --- queueing ------------------------------------------------------------------------


def queue_after_commit(ids: list[int], when=None) -> None:
    """Have these deliveries' tasks queued once the current transaction commits."""
    if ids:
        transaction.on_commit(lambda: deliveries_due.send(sender=None, ids=ids, when=when))


def requeue_lost() -> int:
    """Queue again the due deliveries whose task should have run long ago and did not.

    That happens when a whole worker died holding the message; the broker would give it
    back only after its visibility timeout. Extra copies are harmless: the claim serializes.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.STOREFRONT_WEBHOOK_REQUEUE_AFTER)
    with transaction.atomic():
        ids = list(
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(status=Delivery.PENDING, next_attempt_at__lte=now, queued_for__lte=stale)
            .exclude(lease_until__gt=now)
            .order_by("id")
            .values_list("id", flat=True)[:1000]
        )
        Delivery.objects.filter(pk__in=ids).update(queued_for=now)
        queue_after_commit(ids)
    return len(ids)


def retry_now(ids: list[int]) -> list[int]:
    """An operator's retry of failed or dropped deliveries: one more attempt, now.

    The delivery is pending again and goes through the same claim as any attempt (still
    dropped if its store or app is suspended); a failed one that fails again is failed
    again at once, its schedule being spent. The ids of the deliveries queued.
    """
    now = timezone.now()
    with transaction.atomic():
        retried = list(
            Delivery.objects.select_for_update()
            .filter(pk__in=ids, status__in=[Delivery.FAILED, Delivery.DROPPED])
            .order_by("id")
            .values_list("id", flat=True)
        )
        Delivery.objects.filter(pk__in=retried).update(
            status=Delivery.PENDING,
            next_attempt_at=now,
            queued_for=now,
            lease_until=None,
            finished_at=None,
            outcome="retry requested by a site administrator",
        )
        queue_after_commit(retried)
    return retried


# --- claim ---------------------------------------------------------------------------


# What a claim reads of each delivery, row-locked in id order (two overlapping batches
# cannot deadlock), with what decides whether it may go: SQL for the same reason as the
# settling statements below (the ORM's query building was most of a claim's CPU). SQLite
# has no row locks: its IMMEDIATE transactions (settings) take the write lock at BEGIN,
# which serializes claims as the row locks do.
LOCK_DELIVERIES = """
    SELECT delivery.id, delivery.status, delivery.attempts, delivery.next_attempt_at,
        delivery.lease_until, delivery.event, delivery.url, delivery.body, app.client_secret,
        store.suspended_at IS NOT NULL, installation.id IS NOT NULL,
        installation.suspended_at IS NOT NULL
    FROM storefront_delivery AS delivery
    JOIN storefront_app AS app ON app.id = delivery.app_id
    LEFT JOIN storefront_store AS store ON store.id = delivery.store_id
    LEFT JOIN storefront_installation AS installation
        ON installation.store_id = delivery.store_id AND installation.app_id = delivery.app_id
    WHERE delivery.id IN ({ids})
    ORDER BY delivery.id
"""
START_ATTEMPTS = """
    INSERT INTO storefront_deliveryattempt (delivery_id, number, started_at, worker, error)
    SELECT id, attempts, %s, %s, '' FROM storefront_delivery WHERE id IN ({ids})
    RETURNING delivery_id, id, number
"""


def _placeholders(values) -> str:
    return ", ".join(["%s"] * len(values))


def _to_db(moment: datetime) -> datetime | str:
    """A time as the database stores it (SQLite: UTC text, as the ORM writes it)."""
    return connection.ops.adapt_datetimefield_value(moment)


def _from_db(moment: datetime | None) -> datetime | None:
    """A time read by raw SQL, aware (SQLite's driver gives UTC without a zone)."""
    if moment is not None and timezone.is_naive(moment):
        return timezone.make_aware(moment, UTC)
    return moment


@dataclass
class Due:
    """A delivery as the claim reads it."""

    pk: int
    status: str
    attempts: int
    next_attempt_at: datetime
    lease_until: datetime | None
    event: str
    url: str
    body: str
    secret: str
    store_suspended: bool
    installed: bool
    app_suspended: bool


@dataclass
class Claim:
    """One started attempt: the delivery, its attempt row, and then the result."""

    delivery: Due
    attempt_id: int
    status_code: int | None = None
    error: str = ""
    duration_ms: int | None = None


def _blocked(delivery: Due) -> str:
    """Why this delivery must not be sent now ('' when it may)."""
    if not delivery.installed and delivery.event != "app/uninstalled":
        return "the app was uninstalled"
    if delivery.event in SUSPENSION_EVENTS:
        return ""
    if delivery.store_suspended:
        return "the store is suspended"
    if delivery.app_suspended:
        return "the app is suspended in this store"
    return ""


def claim(ids: list[int], worker: str) -> list[Claim]:
    """Start the next attempt of each due and free delivery among `ids`.

    A delivery leased by a running attempt is looked at again when the lease ends (the
    attempt may belong to a worker that died); one blocked by a suspension or an uninstall
    is dropped, as Tiendanube drops it.
    """
    if not ids:
        return []
    now = timezone.now()
    starting: dict[int, Due] = {}
    dropped: dict[str, list[int]] = defaultdict(list)
    lock = LOCK_DELIVERIES.format(ids=_placeholders(ids))
    if connection.features.has_select_for_update_of:
        lock += " FOR UPDATE OF delivery"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(lock, list(ids))
        for row in cursor.fetchall():
            delivery = Due(*row)
            delivery.next_attempt_at = _from_db(delivery.next_attempt_at)
            delivery.lease_until = _from_db(delivery.lease_until)
            if delivery.status != Delivery.PENDING:
                continue
            if delivery.next_attempt_at > now + timedelta(seconds=1):
                continue  # an early copy; the task queued for the due time will come
            if delivery.lease_until and delivery.lease_until > now:
                when = delivery.lease_until + timedelta(milliseconds=200)
                Delivery.objects.filter(pk=delivery.pk).update(queued_for=when)
                queue_after_commit([delivery.pk], when)
            elif reason := _blocked(delivery):
                dropped[reason].append(delivery.pk)
            else:
                starting[delivery.pk] = delivery
        for reason, dropped_ids in dropped.items():
            Delivery.objects.filter(pk__in=dropped_ids).update(
                status=Delivery.DROPPED,
                outcome=f"not sent: {reason}",
                finished_at=now,
                lease_until=None,
            )
        if not starting:
            return []
        retried = [delivery.pk for delivery in starting.values() if delivery.attempts]
        if retried:
            DeliveryAttempt.objects.filter(
                delivery_id__in=retried, finished_at__isnull=True
            ).update(finished_at=now, error=STALE_ATTEMPT)
        lease_until = now + timedelta(seconds=lease_seconds())
        cursor.execute(
            "UPDATE storefront_delivery SET attempts = attempts + 1, lease_until = %s"
            f" WHERE id IN ({_placeholders(starting)})",
            [_to_db(lease_until), *starting],
        )
        cursor.execute(
            START_ATTEMPTS.format(ids=_placeholders(starting)), [_to_db(now), worker, *starting]
        )
        claims = []
        for delivery_id, attempt_id, number in sorted(cursor.fetchall()):
            starting[delivery_id].attempts = number
            claims.append(Claim(delivery=starting[delivery_id], attempt_id=attempt_id))
    return claims


# --- record --------------------------------------------------------------------------


# The two statements that settle a batch. Set-based SQL, because building the same
# through the ORM (bulk_update's CASE per row and field, one UPDATE per outcome) cost the
# worker more CPU than the rest of a delivery together. Written for both PostgreSQL and
# SQLite (UPDATE ... FROM a VALUES list named by WITH; SQLite's RETURNING names only the
# updated table's columns, unqualified).
SETTLE_ATTEMPTS = """
    WITH result (id, duration_ms, status_code, error) AS (VALUES {rows})
    UPDATE storefront_deliveryattempt AS attempt
    SET finished_at = %s, duration_ms = result.duration_ms, status_code = result.status_code,
        error = result.error
    FROM result
    WHERE attempt.id = result.id
"""
SETTLE_DELIVERIES = """
    WITH result (delivery_id, attempts, status, outcome, next_at) AS (VALUES {rows})
    UPDATE storefront_delivery AS delivery
    SET status = result.status, outcome = result.outcome, lease_until = NULL,
        finished_at = CASE WHEN result.status = 'pending' THEN NULL ELSE %s END,
        next_attempt_at = COALESCE(result.next_at, delivery.next_attempt_at),
        queued_for = COALESCE(result.next_at, delivery.queued_for)
    FROM result
    WHERE delivery.id = result.delivery_id AND delivery.status = 'pending'
        AND delivery.attempts = result.attempts
    RETURNING id
"""


def _values(rows: list[tuple], types: tuple[str, ...]) -> tuple[str, list]:
    """A VALUES list of placeholders and its parameters. PostgreSQL needs each column's
    type (a column of NULLs would be text); SQLite takes the values as they are (its CAST
    to a time type would turn the text into a number)."""
    if connection.vendor == "postgresql":
        row = "(" + ", ".join(f"CAST(%s AS {name})" for name in types) + ")"
    else:
        row = "(" + ", ".join(["%s"] * len(types)) + ")"
    return ", ".join([row] * len(rows)), [value for values in rows for value in values]


def record(claims: list[Claim]) -> None:
    """Store every attempt's result; finish each delivery or schedule its next attempt.

    Only the claim that started an attempt may settle it: if its lease ran out and another
    attempt began (`attempts` moved on), that one will.
    """
    now = timezone.now()
    waits = retry_waits()
    attempts, deliveries, next_at = [], [], {}
    for item in claims:
        number, status = item.delivery.attempts, item.status_code
        succeeded = status is not None and 200 <= status < 300
        error = item.error or ("" if succeeded else f"answered {status}")
        attempts.append((item.attempt_id, item.duration_ms, status, error))
        if succeeded:
            settled = (Delivery.DELIVERED, f"answered {status}", None)
        elif number > len(waits):
            settled = (Delivery.FAILED, f"gave up after {number} attempts: {error}", None)
        else:
            when = now + timedelta(seconds=waits[number - 1])
            settled = (Delivery.PENDING, f"attempt {number}: {error}", when)
        next_at[item.delivery.pk] = settled[2]
        deliveries.append(
            (
                item.delivery.pk,
                number,
                settled[0],
                settled[1][:200],
                settled[2] and _to_db(settled[2]),
            )
        )
    with transaction.atomic(), connection.cursor() as cursor:
        # The VALUES lists go first in the text, the time of the SET after them.
        rows, params = _values(attempts, ("bigint", "integer", "integer", "text"))
        cursor.execute(SETTLE_ATTEMPTS.format(rows=rows), [*params, _to_db(now)])
        types = ("bigint", "integer", "text", "text", "timestamptz")
        rows, params = _values(deliveries, types)
        cursor.execute(SETTLE_DELIVERIES.format(rows=rows), [*params, _to_db(now)])
        retries: dict = defaultdict(list)
        for (delivery_id,) in cursor.fetchall():
            if next_at[delivery_id] is not None:
                retries[next_at[delivery_id]].append(delivery_id)
        for when, ids in retries.items():
            queue_after_commit(ids, when)


def deliver(ids: list[int], worker: str) -> None:
    """One attempt of each of these deliveries that is due and free (the task body)."""
    claims = claim(ids, worker)
    if claims:
        webhook_posts.post_all(claims)
        record(claims)
