import os

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = [Queue("default"), Queue("git"), Queue("webhooks")]
app.autodiscover_tasks()
# Packages inside an app that keep their own tasks module.
app.autodiscover_tasks(["registry.distribution"])
