"""Store events (product/created, app/suspended, ...) raised by the services.

An event is announced only once the change is committed, so nobody hears about data
that was rolled back.
"""

import logging

from django.db import transaction

logger = logging.getLogger("storefront.events")


def emit(store_id: int, event: str, object_id: int) -> None:
    """Announce `event` about `object_id` in store `store_id` after the current commit."""
    transaction.on_commit(lambda: _announce(store_id, event, object_id))


def _announce(store_id: int, event: str, object_id: int) -> None:
    logger.info("store %s event %s id %s", store_id, event, object_id)
