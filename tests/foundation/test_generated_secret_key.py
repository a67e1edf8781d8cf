"""The SECRET_KEY generated into a new DATA_DIR when none is set."""

import subprocess
import sys

from tests.conftest import ROOT, wait_until

# Each process waits for the start signal, so that all of them look for the key at once.
READ_KEY = """
import os, sys, time
from pathlib import Path
from config.env import secret_key
go = Path(sys.argv[2])
(go.parent / f"ready-{os.getpid()}").touch()
while not go.exists():
    time.sleep(0.005)
print(secret_key(Path(sys.argv[1])))
"""


def test_processes_starting_together_on_a_new_data_dir_agree_on_one_key(tmp_path, monkeypatch):
    """Web, worker and beat of a first start all generate the key at once: each starts
    (none fails on the file another one created) with the same whole key."""
    monkeypatch.delenv("SECRET_KEY", raising=False)
    data_dir, go = tmp_path / "data", tmp_path / "go"
    data_dir.mkdir()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", READ_KEY, str(data_dir), str(go)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    wait_until(lambda: len(list(tmp_path.glob("ready-*"))) == len(processes), 60)
    go.touch()
    results = [process.communicate(timeout=60) for process in processes]
    assert [process.returncode for process in processes] == [0] * 6, results
    keys = {out.strip() for out, _ in results}
    assert len(keys) == 1 and len(keys.pop()) == 64
    assert [p.name for p in data_dir.iterdir()] == ["secret_key"]
    assert oct((data_dir / "secret_key").stat().st_mode & 0o777) == "0o600"


def test_a_new_data_dir_is_readable_by_its_owner_only(tmp_path, monkeypatch):
    """DATA_DIR holds the database (password hashes, app client secrets), the generated
    secret key and the blobs: created by the server, other local accounts cannot enter it
    (the SQLite file itself is created with the umask's usual 0644)."""
    from config.env import data_dir

    monkeypatch.setenv("DATA_DIR", str(tmp_path / "new" / "data"))
    created = data_dir(tmp_path)
    assert created.stat().st_mode & 0o777 == 0o700
