"""What `manage.py serve` becomes once the database is migrated: the parent of the web
server and the worker, which are forked from it with Django, every view and every task
module already loaded and frozen out of the garbage collector's scans. gunicorn's master
and Celery's main process, and through them their workers and pool children, share those
pages instead of each importing its own copy (the group freshly started: 228 -> 170 MiB
PSS, against a worker importing its own and a parent exec'd without Django).

Run as a script (`python config/supervisor.py '<json>'`, the JSON mapping names to the
argv of the `gunicorn` or `celery` console script, run in the forked child as that script
would run). The children share this process's group, so one Ctrl-C (or SIGTERM to the
group) stops them all; if one of them dies the others are stopped too, so the service never
runs half-alive.

Forked, not exec'd, every process starts with this one's command line; each names itself
(setproctitle, in the memory of that command line): this one `config/supervisor.py [web,
worker]`, gunicorn's `gunicorn: master|worker [config.wsgi]`, Celery's `[celeryd:
<node>:MainProcess] -active- (<its arguments>)` and `[celeryd: <node>:ForkPoolWorker-<n>]`.
A title is made of names and arguments only: never put a secret in a command's argv.
"""

import gc
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
ROOT = Path(__file__).resolve().parents[1]


def preload() -> None:
    """Load what both children would import alike, then freeze it: a collection in a
    child never writes to these objects' pages, so they stay shared."""
    # Run as a script, this file's directory heads sys.path: its celery.py would shadow
    # Celery itself.
    sys.path[0] = str(ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import celery.__main__  # noqa: F401 (the worker's entry point)
    import gunicorn.app.wsgiapp  # noqa: F401 (the web server's entry point)
    from django.db import connections

    import config.wsgi  # noqa: F401 (Django set up, the WSGI handler and its middleware)
    from config.celery import app
    from config.gunicorn import load_app

    load_app()
    app.loader.import_default_modules()
    connections.close_all()
    gc.collect()
    gc.freeze()


def run(argv: list[str]) -> int:
    """The console script named by argv[0], in this (forked) process."""
    sys.argv = list(argv)
    script = os.path.basename(argv[0])
    if script == "gunicorn":
        from gunicorn.app.wsgiapp import run as main
    elif script == "celery":
        from celery.__main__ import main
    else:
        raise ValueError(f"no entry point for {argv[0]}")
    main()
    return 0


class Child:
    """A forked child, with the part of subprocess.Popen's interface supervise uses."""

    def __init__(self, argv: list[str]):
        sys.stdout.flush()
        sys.stderr.flush()
        self.returncode = None
        self.pid = os.fork()
        if self.pid == 0:
            code = 1
            try:
                for sig in STOP_SIGNALS:
                    signal.signal(sig, signal.SIG_DFL)
                code = run(argv)
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise TimeoutError(self.pid)
            time.sleep(0.05)
        return self.returncode


def supervise(commands: dict[str, list[str]]) -> int:
    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True

    preload()
    # Imported once preload has put the project, not this directory, first on sys.path.
    from setproctitle import setproctitle

    setproctitle(f"config/supervisor.py [{', '.join(commands)}]")
    for sig in STOP_SIGNALS:
        signal.signal(sig, stop)
    children = {name: Child(argv) for name, argv in commands.items()}
    exit_code = 0
    try:
        while not stopping:
            for name, child in children.items():
                if child.poll() is not None:
                    print(
                        f"{name} exited with status {child.returncode}; stopping.", file=sys.stderr
                    )
                    exit_code = 1
                    stopping = True
            time.sleep(0.2)
    finally:
        stop_all(children.values())
    return exit_code


def stop_all(children, grace_seconds: float = 15.0) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=5)


if __name__ == "__main__":
    sys.exit(supervise(json.loads(sys.argv[1])))
