import os

from celery import Celery
from celery.signals import celeryd_after_setup, task_prerun
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
