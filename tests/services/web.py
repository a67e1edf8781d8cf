"""gunicorn as `make run` starts it, on the test database and DATA_DIR."""

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.services.servers import free_port, wait_for_port

ROOT = Path(__file__).resolve().parent.parent.parent
GUNICORN = os.path.join(os.path.dirname(sys.executable), "gunicorn")


@contextlib.contextmanager
def gunicorn(database_url: str, log_path: Path, workers: int = 3, threads: int = 8, **env):
    """Yields (base URL, process) of a gunicorn serving config.wsgi; `env` adds settings.
    Stopped with SIGTERM, so its last access-log lines are written."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "WEB_CONCURRENCY": str(workers),
        "WEB_THREADS": str(threads),
        **{name: str(value) for name, value in env.items()},
    }
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [GUNICORN, "-c", "python:config.gunicorn", "config.wsgi"],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for_port(port, process, log_path, seconds=120)
        yield f"http://127.0.0.1:{port}", process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@contextlib.contextmanager
def serve(env: dict, log_path: Path):
    """`manage.py serve` (web, worker and beat in one process group) with exactly `env`;
    yields its process once the port in env["PORT"] answers. Stopped as an operator
    would, with one SIGTERM to the group; still running after 30 s is a failure."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for_port(int(env["PORT"]), process, log_path, seconds=180)
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
            raise
