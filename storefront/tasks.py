"""Webhook delivery tasks (queue `webhooks`); the rules live in storefront.services.

This module is the one place that queues storefront work. The services announce what is
due through `webhook_delivery.deliveries_due` (after commit) and never import this module;
`StorefrontConfig.ready` imports it in every process, so the receiver below is always
connected.
"""

import os
import socket

from celery import shared_task
from django.conf import settings
from django.dispatch import receiver

from storefront import webhook_posts
from storefront.services import webhook_delivery

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


@receiver(webhook_delivery.deliveries_due)
def queue_deliveries(sender, ids: list[int], when=None, **kwargs) -> None:
    """Queue tasks for these deliveries, one per batch the sender POSTs at once, now or at
    `when`."""
    size = webhook_posts.BATCH_SIZE
    for start in range(0, len(ids), size):
        deliver_webhooks.apply_async(args=[ids[start : start + size]], queue="webhooks", eta=when)
