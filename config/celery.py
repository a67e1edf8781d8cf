import os

from celery import Celery, bootsteps
from celery.beat import EmbeddedService
from celery.signals import celeryd_after_setup, task_prerun
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
