"""What `manage.py serve` becomes once the database is migrated: a small supervisor of
the web server and the worker, with no Django loaded (a parent holding Django's ~100 MB
for its whole life only to wait on children).

Run as a script (`python config/supervisor.py '<json>'`, the JSON mapping names to argv),
never imported with the `config` package, whose import loads Celery and Django. The
children share this process's group, so one Ctrl-C (or SIGTERM to the group) stops them
all; if one of them dies the others are stopped too, so the service never runs half-alive.
"""

import json
import signal
import subprocess
import sys
import time

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def supervise(commands: dict[str, list[str]]) -> int:
    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True

    for sig in STOP_SIGNALS:
        signal.signal(sig, stop)
    children = {name: subprocess.Popen(argv) for name, argv in commands.items()}
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
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


if __name__ == "__main__":
    sys.exit(supervise(json.loads(sys.argv[1])))
