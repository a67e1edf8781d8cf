"""Store events (product/created, app/suspended, ...) raised by the services.

`emit` is called inside the transaction of the change: the deliveries are written in that
transaction and their tasks are queued once it commits, so nobody hears about data that
was rolled back and no committed event is lost between the commit and the queue.
"""

import logging

from storefront import webhooks

logger = logging.getLogger("storefront.events")


def emit(store_id: int, event: str, object_id: int) -> None:
    """Announce `event` about `object_id` in store `store_id` to the subscribed apps."""
    deliveries = webhooks.fan_out(store_id, event, object_id)
    logger.info(
        "store %s event %s id %s: %d deliveries", store_id, event, object_id, len(deliveries)
    )
