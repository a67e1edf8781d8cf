"""Webhook delivery tasks (queue `webhooks`); the rules live in storefront.webhooks."""

import os
import socket

from celery import shared_task
from django.conf import settings

from storefront import webhooks

WORKER = socket.gethostname()


@shared_task(
    name="storefront.deliver_webhook",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # Raised inside the POST when an endpoint trickles its answer: recorded as a failure.
    soft_time_limit=2 * settings.STOREFRONT_WEBHOOK_TIMEOUT + 1,
)
def deliver_webhook(delivery_id: int) -> None:
    """One attempt of a delivery; safe to run twice (the delivery row is claimed)."""
    webhooks.deliver(delivery_id, worker=f"{WORKER} pid {os.getpid()}")


@shared_task(name="storefront.requeue_lost_deliveries", ignore_result=True)
def requeue_lost_deliveries() -> int:
    """Periodic (beat): queue again the deliveries whose task was lost with its worker."""
    return webhooks.requeue_lost()
