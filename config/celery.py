import os
from time import monotonic

from celery import Celery, bootsteps
from celery.beat import EmbeddedService
from celery.signals import celeryd_after_setup, task_prerun
from celery.worker.autoscale import Autoscaler
from click import Option
from kombu import Queue
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# filesystem:// (the embedded default's broker) names kombu's transport with messages
# written whole before a worker can see them (config/broker.py).
TRANSPORT_ALIASES["filesystem"] = "config.broker:Transport"

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = [Queue("default"), Queue("git"), Queue("webhooks")]
app.autodiscover_tasks()
# Packages inside an app that keep their own tasks module.
app.autodiscover_tasks(["registry.distribution", "registry.gc"])


class ThreadedBeat(bootsteps.StartStopStep):
    """`celery worker --beat-thread`: beat embedded as a thread of the worker's main process.

    Celery's `-B` forks beat into a process of its own: a whole Python (12-18 MiB of its
    own pages under PSS) only to send a handful of periodic tasks. The thread sends the
    same schedule under the same lease (config.beat), ticking at least once a second so a
    stop is prompt.
    """

    label = "Beat (thread)"
    conditional = True

    def __init__(self, w, beat_thread=False, **kwargs):
        self.enabled = bool(beat_thread)
        super().__init__(w, **kwargs)

    def create(self, w):
        return EmbeddedService(
            w.app, schedule_filename=w.schedule_filename, scheduler_cls=w.scheduler, thread=True
        )


app.user_options["worker"].add(
    Option(
        ("--beat-thread",),
        is_flag=True,
        default=False,
        help="Run beat as a thread of the worker's main process (instead of -B's process).",
    )
)
app.steps["worker"].add(ThreadedBeat)


class PromptAutoscaler(Autoscaler):
    """`--autoscale`'s scaler: an extra child is forked for tasks that wait, and leaves
    after 10 s without a new task.

    Celery's keepalive is 30 s from the last task received, and beat sends a task every
    30 s: a child forked for a burst of tasks never left again (an idle `make run` kept
    7 processes instead of 6, ~30 MiB PSS). And Celery grows the pool as soon as a second
    task is reserved: beat's housekeeping tasks, sent together every minute and done in a
    few milliseconds each, forked a child (20-30 MiB PSS) for 10-20 s of every minute.
    Here the pool grows once tasks have been waiting for GROW_AFTER seconds (checked
    every second; with an event loop, a check is also set for when they would have
    waited that long).
    """

    GROW_AFTER = 1.0

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("keepalive", 10.0)
        super().__init__(*args, **kwargs)
        self._waiting_since = None

    def _maybe_scale(self, req=None):
        if min(self.qty, self.max_concurrency) > self.processes:
            now = monotonic()
            if self._waiting_since is None:
                self._waiting_since = now
                hub = getattr(self.worker, "hub", None)
                if hub is not None:
                    hub.call_later(self.GROW_AFTER, self.maybe_scale)
            if now - self._waiting_since < self.GROW_AFTER:
                return False
        self._waiting_since = None
        return super()._maybe_scale(req)


app.conf.worker_autoscaler = "config.celery:PromptAutoscaler"


@task_prerun.connect
def drop_unusable_database_connections(task, **kwargs) -> None:
    """What Django does at the start of each request: a connection that errored, outlived
    CONN_MAX_AGE or fails its health check is replaced. Not for a task run eagerly inside
    the caller's transaction."""
    from django.db import close_old_connections

    if not getattr(task.request, "is_eager", False):
        close_old_connections()


@celeryd_after_setup.connect
def freeze_before_forking(**kwargs) -> None:
    """The worker's pool children (and its embedded beat) are forked from this process with
    Django and the task modules loaded: frozen out of the garbage collector's scans, those
    objects' pages stay shared with the children instead of being copied by their first
    collection."""
    import gc

    gc.collect()
    gc.freeze()
