"""config/supervisor.py: what `manage.py serve` becomes, the parent of web and worker."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = os.path.dirname(sys.executable)


def supervise(commands: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DATA_DIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, str(ROOT / "config" / "supervisor.py"), json.dumps(commands)],
        cwd=tmp_path,  # not the project: the supervisor finds it itself
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_child_runs_its_console_script_and_its_exit_stops_the_supervisor(tmp_path):
    """The child is forked from the supervisor with the app loaded and runs Celery's own
    entry point (not config/celery.py, which heads sys.path when run as a script)."""
    import celery

    done = supervise({"worker": [os.path.join(BIN, "celery"), "--version"]}, tmp_path)
    assert done.returncode == 1, done.stderr
    assert celery.__version__ in done.stdout
    assert "worker exited with status 0; stopping." in done.stderr
