"""`make run`'s worker pool grows for a burst of tasks and shrinks back to one child."""

from celery.utils.imports import symbol_by_name
from django.conf import settings

from config.celery import app


def test_an_extra_pool_child_leaves_between_two_beat_ticks():
    """Each task received restarts the scaler's keepalive: were it as long as beat's tick
    (30 s), the child forked for a burst would never leave."""
    scaler = symbol_by_name(app.conf.worker_autoscaler)(None, 2, 1)
    shortest = min(
        entry["schedule"]
        for entry in settings.CELERY_BEAT_SCHEDULE.values()
        if isinstance(entry["schedule"], int | float)
    )
    assert scaler.keepalive < shortest / 2
