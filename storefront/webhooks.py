"""Webhooks: registration rules, and the fan-out of store events to subscribers.

An event creates one Delivery row per subscribed webhook in the transaction of the change,
and the tasks that deliver them (storefront.webhook_delivery) are queued once it commits.
"""

import json
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from config import outbound
from storefront import webhook_delivery
from storefront.models import EVENTS, SUSPENSION_EVENTS, Delivery, Installation, Webhook

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


# --- registration --------------------------------------------------------------------


def _host_refused(host: str) -> bool:
    """Refused names, and hosts resolving now to any local or private address (in any
    spelling: 127.1, 2130706433, 0x7f000001, ::ffff:127.0.0.1, 0.0.0.0). A name that does
    not resolve yet is accepted: every delivery checks the address again as resolved then."""
    host = host.lower().rstrip(".")
    if any(host == domain or host.endswith("." + domain) for domain in REFUSED_DOMAINS):
        return True
    if settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS:
        return False
    return not all(outbound.is_public(address) for address in outbound.resolve(host))


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
    if parts.scheme != "https" and not settings.STOREFRONT_WEBHOOK_ALLOW_INSECURE:
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
        transaction.on_commit(lambda: webhook_delivery.queue(ids))
    return ids


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
        if retried:
            transaction.on_commit(lambda: webhook_delivery.queue(retried))
    return retried
