"""Webhook delivery tasks (queue `webhooks`); the rules live in storefront.webhooks."""

import os
import socket

from celery import shared_task
from django.conf import settings

from storefront import webhook_delivery

WORKER = socket.gethostname()


@shared_task(
    name="storefront.deliver_webhooks",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # A batch waits at most one attempt limit for its POSTs; past this something hangs
    # (the database?): the child is replaced and the broker hands the batch out again.
    time_limit=4 * settings.STOREFRONT_WEBHOOK_TIMEOUT + 60,
)
def deliver_webhooks(delivery_ids: list[int]) -> None:
    """One attempt of each of these deliveries; safe to run twice (rows are claimed)."""
    webhook_delivery.deliver(delivery_ids, worker=f"{WORKER} pid {os.getpid()}")


@shared_task(name="storefront.requeue_lost_deliveries", ignore_result=True)
def requeue_lost_deliveries() -> int:
    """Periodic (beat): queue again the deliveries whose task was lost with its worker."""
    return webhook_delivery.requeue_lost()
