"""`make run`: migrate, ensure the admin account, then supervise web, worker and beat.

The three servers are children of this process and share its process group, so one
Ctrl-C (or SIGTERM to the group) stops them all; if one of them dies the others are
stopped too, so the service never runs half-alive.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Command(BaseCommand):
    help = "Migrate, ensure the admin account, and serve with gunicorn, a Celery worker and beat."

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
                "-Q",
                "default,git,webhooks",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--concurrency",
                os.environ.get("WORKER_CONCURRENCY", "4"),
            ],
            "beat": [
                os.path.join(bin_dir, "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                settings.CELERY_BEAT_SCHEDULE_FILENAME,
            ],
        }
        self.stdout.write(f"Serving on http://127.0.0.1:{settings.PORT} (Ctrl-C stops everything)")
        self.stdout.flush()
        children = {name: subprocess.Popen(argv) for name, argv in commands.items()}
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        for sig in STOP_SIGNALS:
            signal.signal(sig, stop)
        exit_code = 0
        try:
            while not stopping:
                for name, child in children.items():
                    if child.poll() is not None:
                        self.stderr.write(
                            f"{name} exited with status {child.returncode}; stopping."
                        )
                        exit_code = 1
                        stopping = True
                time.sleep(0.2)
        finally:
            self._stop_all(children.values())
        sys.exit(exit_code)

    @staticmethod
    def _stop_all(children, grace_seconds: float = 15.0) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_seconds
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
