"""Webhooks: registration rules, fan-out of store events, and delivery with retries.

Delivery is at least once. An event creates one Delivery row per subscribed webhook in the
transaction of the change, and a Celery task per row is queued once that commits. A task
claims its delivery under a row lock with a short lease, POSTs outside any transaction,
then records the attempt and either finishes or schedules the next try. A task lost with
its worker is redelivered by the broker (acks_late + reject_on_worker_lost) or, when the
whole worker died, queued again by the periodic `requeue_lost_deliveries` task.
"""

import hashlib
import hmac
import ipaddress
import json
import os
import time
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import requests
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from storefront.models import Installation
from storefront.webhook_models import EVENTS, Delivery, DeliveryAttempt, Webhook

SIGNATURE_HEADER = "X-Linkedstore-Hmac-Sha256"
# Sent to the suspended app too: they are how it learns about its own suspension.
SUSPENSION_EVENTS = ("app/suspended", "app/resumed")
# Host names Tiendanube refuses as webhook targets, besides localhost.
REFUSED_DOMAINS = ("localhost", "tiendanube.com", "nuvemshop.com.br")
# The scope an app needs to subscribe to an event, by the event's resource.
EVENT_SCOPES = {
    "product": ("read_products", "write_products"),
    "category": ("read_products", "write_products"),
    "order": ("read_orders", "write_orders"),
}


class WebhookInvalid(ValueError):
    """Field errors, as Tiendanube reports them: {"url": [...], "event": [...]}."""

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__(fields)
        self.fields = fields


class WebhookExists(ValueError):
    pass


class ScopeMissing(PermissionError):
    pass


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
    """How long a started attempt keeps others off its delivery: both timeouts plus slack."""
    return 2 * settings.STOREFRONT_WEBHOOK_TIMEOUT + 3


# --- registration --------------------------------------------------------------------


def _host_refused(host: str) -> bool:
    host = host.lower().rstrip(".")
    if any(host == domain or host.endswith("." + domain) for domain in REFUSED_DOMAINS):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_global


def url_errors(url) -> list[str]:
    if not isinstance(url, str) or not url.strip():
        return ["can't be blank"]
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return ["invalid url specified"]
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > 1000:
        return ["invalid url specified"]
    if settings.STOREFRONT_WEBHOOK_ALLOW_INSECURE:
        return []
    if parts.scheme != "https":
        return ["invalid url specified: webhooks must use https"]
    if _host_refused(parts.hostname):
        return ["invalid url specified: localhost and private addresses are not accepted"]
    return []


def event_errors(event) -> list[str]:
    if not isinstance(event, str) or not event:
        return ["can't be blank"]
    if event not in EVENTS:
        return ["Invalid event specified. Events allowed: " + ", ".join(EVENTS)]
    return []


def check_scope(installation: Installation, event: str) -> None:
    needed = EVENT_SCOPES.get(event.split("/", 1)[0])
    if needed and not (set(needed) & installation.scope_set):
        raise ScopeMissing(f"The {event} event needs the {needed[0]} scope")


def _validate(installation: Installation, url, event) -> None:
    fields = {}
    if errors := url_errors(url):
        fields["url"] = errors
    if errors := event_errors(event):
        fields["event"] = errors
    if fields:
        raise WebhookInvalid(fields)
    check_scope(installation, event)


def _save(webhook: Webhook) -> Webhook:
    try:
        with transaction.atomic():
            webhook.save()
    except IntegrityError as error:
        raise WebhookExists(
            f"A webhook for {webhook.event} to this url already exists for the app"
        ) from error
    return webhook


def create_webhook(installation: Installation, *, url, event) -> Webhook:
    _validate(installation, url, event)
    return _save(Webhook(installation=installation, url=url, event=event))


def update_webhook(webhook: Webhook, *, url=None, event=None) -> Webhook:
    webhook.url = webhook.url if url is None else url
    webhook.event = webhook.event if event is None else event
    _validate(webhook.installation, webhook.url, webhook.event)
    return _save(webhook)


# --- fan-out -------------------------------------------------------------------------


def _body(store_id: int, event: str, object_id: int) -> str:
    return json.dumps({"store_id": store_id, "event": event, "id": object_id})


def fan_out(store_id: int, event: str, object_id: int, *, only_app_id: int | None = None):
    """One delivery per webhook subscribed to `event` in the store, queued after commit.

    Apps whose access is suspended (store or installation) get nothing, except the two
    suspension events themselves. Runs inside the caller's transaction, so a rolled-back
    change announces nothing.
    """
    webhooks = Webhook.objects.filter(installation__store_id=store_id, event=event)
    if only_app_id is not None:
        webhooks = webhooks.filter(installation__app_id=only_app_id)
    if event not in SUSPENSION_EVENTS:
        webhooks = webhooks.filter(
            installation__suspended_at__isnull=True, installation__store__suspended_at__isnull=True
        )
    now = timezone.now()
    body = _body(store_id, event, object_id)
    created = Delivery.objects.bulk_create(
        [
            Delivery(
                webhook_id=webhook_id,
                store_id=store_id,
                app_id=app_id,
                event=event,
                object_id=object_id,
                url=url,
                body=body,
                next_attempt_at=now,
                queued_for=now,
            )
            for webhook_id, app_id, url in webhooks.values_list("id", "installation__app_id", "url")
        ]
    )
    ids = [delivery.pk for delivery in created]
    if ids:
        transaction.on_commit(lambda: _queue_all(ids))
    return ids


def _queue_all(ids: list[int]) -> None:
    from storefront.tasks import deliver_webhook

    for delivery_id in ids:
        deliver_webhook.apply_async(args=[delivery_id], queue="webhooks")


def _queue_at(delivery_id: int, when) -> None:
    from storefront.tasks import deliver_webhook

    deliver_webhook.apply_async(args=[delivery_id], queue="webhooks", eta=when)


# --- delivery ------------------------------------------------------------------------


def sign(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Claim:
    delivery: Delivery
    attempt: DeliveryAttempt
    secret: str


def _blocked(delivery: Delivery) -> str:
    """Why this delivery must not be sent now ('' when it may).

    Reads the `installed` and `app_suspended` annotations and the store that `claim`
    loads with the delivery.
    """
    if not delivery.installed:
        return "" if delivery.event == "app/uninstalled" else "the app was uninstalled"
    if delivery.event in SUSPENSION_EVENTS:
        return ""
    if delivery.store.suspended_at:
        return "the store is suspended"
    if delivery.app_suspended:
        return "the app is suspended in this store"
    return ""


def claim(delivery_id: int, worker: str) -> Claim | None:
    """Start the next attempt of a due delivery, or None when there is nothing to do now.

    A delivery leased by a running attempt is looked at again when the lease ends (the
    attempt may belong to a worker that died).
    """
    now = timezone.now()
    with transaction.atomic():
        installation = Installation.objects.filter(
            store_id=OuterRef("store_id"), app_id=OuterRef("app_id")
        )
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("app", "store")
            .annotate(
                installed=Exists(installation),
                app_suspended=Exists(installation.filter(suspended_at__isnull=False)),
            )
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != Delivery.PENDING:
            return None
        if delivery.next_attempt_at > now + timedelta(seconds=1):
            return None  # an early copy; the task queued for the due time will come
        if delivery.lease_until and delivery.lease_until > now:
            when = delivery.lease_until + timedelta(milliseconds=200)
            Delivery.objects.filter(pk=delivery.pk).update(queued_for=when)
            transaction.on_commit(lambda: _queue_at(delivery_id, when))
            return None
        if reason := _blocked(delivery):
            delivery.status = Delivery.DROPPED
            delivery.outcome = f"not sent: {reason}"
            delivery.finished_at = now
            delivery.lease_until = None
            delivery.save(update_fields=["status", "outcome", "finished_at", "lease_until"])
            return None
        if delivery.attempts:
            delivery.attempt_log.filter(finished_at__isnull=True).update(
                finished_at=now, error="no result: the worker stopped during this attempt"
            )
        delivery.attempts += 1
        delivery.lease_until = now + timedelta(seconds=lease_seconds())
        delivery.save(update_fields=["attempts", "lease_until"])
        attempt = DeliveryAttempt.objects.create(
            delivery=delivery, number=delivery.attempts, started_at=now, worker=worker
        )
    return Claim(delivery=delivery, attempt=attempt, secret=delivery.app.client_secret)


_session: requests.Session | None = None
_session_pid: int | None = None


def _http() -> requests.Session:
    """One keep-alive session per process (worker children fork: never share one)."""
    global _session, _session_pid
    if _session is None or _session_pid != os.getpid():
        _session = requests.Session()
        _session.trust_env = False  # no proxies from the environment for app endpoints
        _session_pid = os.getpid()
    return _session


def post(claim_: Claim) -> tuple[int | None, str]:
    """POST the exact body, signed; (status code, error text)."""
    body = claim_.delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Storefront-Webhooks/1.0",
        SIGNATURE_HEADER: sign(body, claim_.secret),
    }
    timeout = settings.STOREFRONT_WEBHOOK_TIMEOUT
    try:
        with _http().post(
            claim_.delivery.url,
            data=body,
            headers=headers,
            timeout=(timeout, timeout),
            allow_redirects=False,
            stream=True,
        ) as response:
            return response.status_code, ""
    except requests.Timeout:
        return None, f"no answer within {timeout} s"
    except SoftTimeLimitExceeded:
        return None, "no complete answer within the attempt's time limit"
    except (requests.RequestException, OSError) as error:
        return None, f"{type(error).__name__}: {error}"[:500]


def record(claim_: Claim, status_code: int | None, error: str, started: float) -> None:
    """Store the attempt's result; finish the delivery or schedule its next attempt."""
    now = timezone.now()
    attempt = claim_.attempt
    attempt.finished_at = now
    attempt.duration_ms = int((time.monotonic() - started) * 1000)
    attempt.status_code = status_code
    attempt.error = error or ("" if attempt.succeeded else f"answered {status_code}")
    # Only the claim that started this attempt may settle it: if its lease ran out and
    # another attempt began, that one will.
    ours = Delivery.objects.filter(
        pk=claim_.delivery.pk, status=Delivery.PENDING, attempts=claim_.delivery.attempts
    )
    waits = retry_waits()
    with transaction.atomic():
        attempt.save(update_fields=["finished_at", "duration_ms", "status_code", "error"])
        if attempt.succeeded:
            ours.update(
                status=Delivery.DELIVERED,
                outcome=f"answered {status_code}",
                finished_at=now,
                lease_until=None,
            )
        elif claim_.delivery.attempts > len(waits):
            ours.update(
                status=Delivery.FAILED,
                outcome=f"gave up after {claim_.delivery.attempts} attempts: {attempt.error}",
                finished_at=now,
                lease_until=None,
            )
        else:
            when = now + timedelta(seconds=waits[claim_.delivery.attempts - 1])
            if ours.update(
                next_attempt_at=when,
                queued_for=when,
                lease_until=None,
                outcome=f"attempt {claim_.delivery.attempts}: {attempt.error}",
            ):
                delivery_id = claim_.delivery.pk
                transaction.on_commit(lambda: _queue_at(delivery_id, when))


def deliver(delivery_id: int, worker: str) -> None:
    """One attempt of a delivery, if it is due and free (the task body)."""
    claim_ = claim(delivery_id, worker)
    if claim_ is None:
        return
    started = time.monotonic()
    status_code, error = post(claim_)
    record(claim_, status_code, error, started)


def requeue_lost() -> int:
    """Queue again the due deliveries whose task should have run long ago and did not.

    That happens when a whole worker died holding the message; the broker would give it
    back only after its visibility timeout. Extra copies are harmless: `claim` serializes.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.STOREFRONT_WEBHOOK_REQUEUE_AFTER)
    with transaction.atomic():
        ids = list(
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(status=Delivery.PENDING, next_attempt_at__lte=now, queued_for__lte=stale)
            .exclude(lease_until__gt=now)
            .values_list("id", flat=True)[:1000]
        )
        Delivery.objects.filter(pk__in=ids).update(queued_for=now)
        transaction.on_commit(lambda: _queue_all(ids))
    return len(ids)
