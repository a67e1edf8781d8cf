"""`make run`: migrate, ensure the admin account, then supervise web and worker.

The worker runs Celery beat as a thread of its main process (`--beat-thread`,
config/celery.py): one node, one beat, one process fewer than `-B`'s.
Once the database is ready this process replaces itself (exec, same pid and process
group) with `config/supervisor.py`, which loads Django and the apps once, without the
migrations' leftovers, and forks web and worker from that state so they share it.
"""

import json
import os
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connections

SUPERVISOR = Path(__file__).resolve().parents[2] / "supervisor.py"


class Command(BaseCommand):
    help = (
        "Migrate, ensure the admin account, and serve with gunicorn and a Celery worker with beat."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-migrate", action="store_true", help="skip migrate and ensureadmin"
        )

    def handle(self, *args, **options):
        if not options["no_migrate"]:
            call_command("migrate", interactive=False, verbosity=0)
            call_command("ensureadmin")
        bin_dir = os.path.dirname(sys.executable)
        commands = {
            "web": [
                os.path.join(bin_dir, "gunicorn"),
                "-c",
                "python:config.gunicorn",
                "config.wsgi",
            ],
            "worker": [
                os.path.join(bin_dir, "celery"),
                "-A",
                "config",
                "worker",
                "--beat-thread",
                "--schedule",
                settings.CELERY_BEAT_SCHEDULE_FILENAME,
                "-Q",
                "default,git,webhooks",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                # One pool child while the queues are quiet, one per core (at least 2) when
                # tasks wait: a child is a Python of its own (34-38 MiB PSS), forked from
                # the loaded worker in milliseconds when a second task is reserved.
                "--autoscale",
                f"{os.environ.get('WORKER_CONCURRENCY', max(os.cpu_count() or 1, 2))},1",
            ],
        }
        self.stdout.write(f"Serving on http://127.0.0.1:{settings.PORT} (Ctrl-C stops everything)")
        self.stdout.flush()
        sys.stderr.flush()
        connections.close_all()
        os.execve(
            sys.executable,
            [sys.executable, str(SUPERVISOR), json.dumps(commands)],
            child_environment(os.environ),
        )


def child_environment(environ) -> dict:
    """The environment of the supervisor, and so of every process it forks: glibc's malloc
    gives each thread that allocates its own arena (up to 8 per core), each keeping its own
    freed high-water mark, and a web process has 8 request threads. Two arenas: read when
    the process starts, so set here, before the exec; an operator's own value is kept."""
    return {"MALLOC_ARENA_MAX": "2", **environ}
