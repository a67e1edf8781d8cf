"""Store events (product/created, app/suspended, ...) raised by the services, and their
fan-out: one Delivery row per subscribed webhook.

`emit` is called inside the transaction of the change: the deliveries are written in that
transaction and their tasks are queued once it commits, so nobody hears about data that
was rolled back and no committed event is lost between the commit and the queue.
"""

import json
import logging

from django.utils import timezone

from storefront.models import SUSPENSION_EVENTS, Delivery, Webhook
from storefront.services import webhook_delivery

logger = logging.getLogger("storefront.events")


def emit(store_id: int, event: str, object_id: int) -> None:
    """Announce `event` about `object_id` in store `store_id` to the subscribed apps."""
    deliveries = fan_out(store_id, event, object_id)
    logger.info(
        "store %s event %s id %s: %d deliveries", store_id, event, object_id, len(deliveries)
    )


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
    webhook_delivery.queue_after_commit(ids)
    return ids
