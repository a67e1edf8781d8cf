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


class Prefork:
    """The part of Celery's prefork pool the scaler drives: its count of children."""

    def __init__(self):
        self.num_processes = 1

    def grow(self, n):
        self.num_processes += n

    def shrink(self, n):
        self.num_processes -= n

    def maintain_pool(self):
        pass


class Hub:
    """The worker's event loop (with the Redis broker): the checks set on it."""

    def __init__(self):
        self.later = []

    def call_later(self, seconds, callback):
        self.later.append((seconds, callback))


def test_a_child_is_forked_for_tasks_that_wait_not_for_beats_quick_burst(monkeypatch):
    """Beat sends its housekeeping tasks together every minute, each done in milliseconds:
    a second child forked for them (20-30 MiB) would live 10-20 s of every minute."""
    from celery.worker import state

    import config.celery

    now = [1000.0]
    monkeypatch.setattr(config.celery, "monotonic", lambda: now[0], raising=False)
    reserved = set()
    monkeypatch.setattr(state, "reserved_requests", reserved)
    pool = Prefork()
    worker = type("Worker", (), {"hub": Hub()})()
    scaler = symbol_by_name(app.conf.worker_autoscaler)(pool, 2, 1, worker=worker)

    reserved.update({"tick", "mirrors", "gc", "deliveries"})
    scaler.maybe_scale()
    # With an event loop the next check comes when they would have waited long enough.
    assert [seconds for seconds, _ in worker.hub.later] == [scaler.GROW_AFTER]
    now[0] += 0.3
    scaler.maybe_scale()
    reserved.clear()  # done by the one child
    now[0] += 0.7
    worker.hub.later[0][1]()
    assert pool.num_processes == 1

    reserved.update({"sync one mirror", "sync another"})
    scaler.maybe_scale()
    now[0] += 0.5
    scaler.maybe_scale()
    assert pool.num_processes == 1
    now[0] += 0.5
    scaler.maybe_scale()
    assert pool.num_processes == 2
