"""Migrations and mirror syncs done by Celery workers, against plain git.

- migrating a repository of 1,000 commits (local path and our own smart HTTP as the
  remote) vs a plain `git clone --mirror` of the same source: wall time per migration;
- mirror-syncing 50 mirrors at once: wall time until every `mirror_updated` moved;
- GET /api/v1/version latency while the workers are busy with those syncs.
"""

import base64
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from benchmarks.harness import (
    ROOT,
    backing_services,
    load,
    manage,
    print_table,
    run_django,
    web_server,
)

COMMITS = 1000
MIRRORS = 50
ROUNDS = 15
# Migrations run before measuring, so each web worker has its connections and caches.
WARM_UP = 8
# One git worker process per core of the 2-core machine the figures were taken on.
WORKER_PROCESSES = 2
ADMIN = ("admin", "bench-admin")
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(*args, cwd=None, stdin: bytes | None = None) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, input=stdin, capture_output=True)
    if result.returncode:
        raise RuntimeError(f"git {args[0]}: {result.stderr.decode()[-500:]}")
    return result.stdout.decode().strip()


def make_source(path: Path, commits: int) -> None:
    """A bare repository of `commits` commits, each touching a few files (fast-import)."""
    git("init", "--bare", "--quiet", "--initial-branch=main", str(path))
    stream = []
    for number in range(1, commits + 1):
        body = f"line {number}\n" * 20
        message = f"commit {number}\n"
        stream.append(
            f"commit refs/heads/main\nmark :{number}\n"
            f"committer Bench <bench@example.com> {1700000000 + number} +0000\n"
            f"data {len(message)}\n{message}"
            + (f"from :{number - 1}\n" if number > 1 else "")
            + f"M 644 inline file{number % 50}.txt\ndata {len(body)}\n{body}\n"
        )
    git("fast-import", "--quiet", cwd=path, stdin="".join(stream).encode())


def add_commit(path: Path, number: int) -> None:
    """One more commit on main of a bare repository, built with plumbing."""
    blob = git("hash-object", "-w", "--stdin", cwd=path, stdin=f"sync {number}\n".encode())
    tree = git("mktree", cwd=path, stdin=f"100644 blob {blob}\tsync.txt\n".encode())
    parent = git("rev-parse", "refs/heads/main", cwd=path)
    commit = git("commit-tree", tree, "-p", parent, "-m", f"sync {number}", cwd=path)
    git("update-ref", "refs/heads/main", commit, cwd=path)


@contextlib.contextmanager
def celery_worker(env: dict, concurrency: int):
    log = Path(env["DATA_DIR"]) / "worker.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default,git",
         "--concurrency", str(concurrency), "--without-gossip", "--without-mingle",
         "--loglevel", "WARNING"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def timed(action) -> float:
    began = time.perf_counter()
    action()
    return time.perf_counter() - began


def basic_header() -> dict:
    token = base64.b64encode(":".join(ADMIN).encode()).decode()
    return {"Authorization": f"Basic {token}"}


def migrate(session, base: str, clone_addr: str, name: str, **extra) -> dict:
    response = session.post(
        f"{base}/api/v1/repos/migrate",
        json={"clone_addr": clone_addr, "repo_name": name, **extra},
        timeout=600,
    )
    if response.status_code != 201:
        raise RuntimeError(f"migration of {name}: {response.status_code} {response.text[:300]}")
    return response.json()


def compare_with_plain_clone(
    env: dict, session, base: str, source: str, label: str, scratch: Path
) -> dict:
    plain, ours = [], []
    for attempt in range(WARM_UP):
        migrate(session, base, source, f"warm-{label}-{attempt}")
    for attempt in range(ROUNDS):
        target = scratch / f"plain-{label}-{attempt}.git"
        plain.append(timed(lambda t=target: git("clone", "--mirror", "--quiet", source, str(t))))
        shutil.rmtree(target)
        name = f"{label}-{attempt}"
        ours.append(timed(lambda n=name: migrate(session, base, source, n)))
    timings = json.loads(
        run_django(
            env,
            "import json\n"
            "from codehost.models import MigrationTask\n"
            f"tasks = MigrationTask.objects.filter(repo_name__startswith='{label}-')\n"
            "print(json.dumps([[(t.started - t.created).total_seconds(),"
            " (t.finished - t.started).total_seconds()] for t in tasks]))",
        )
    )
    return {
        "remote": label,
        "commits": COMMITS,
        "git clone --mirror ms (median)": statistics.median(plain) * 1000,
        "POST /repos/migrate ms (median)": statistics.median(ours) * 1000,
        "ratio": f"{statistics.median(ours) / statistics.median(plain):.2f}",
        "queued ms": statistics.median(t[0] for t in timings) * 1000,
        "in worker ms": statistics.median(t[1] for t in timings) * 1000,
        # The machine's load when measured: wall times mean little on a busy machine.
        "load 1m": os.getloadavg()[0],
    }


def sync_all(session, base: str, names: list[str], source: Path, round_number: int) -> float:
    """Push a commit to the source, sync every mirror at once; seconds until all moved."""
    before = {
        name: session.get(f"{base}/api/v1/repos/admin/{name}").json()["mirror_updated"]
        for name in names
    }
    add_commit(source, round_number)
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(
            pool.map(
                lambda n: session.post(f"{base}/api/v1/repos/admin/{n}/mirror-sync").status_code,
                names,
            )
        )
    if set(answers) != {200}:
        raise RuntimeError(f"mirror-sync answers: {set(answers)}")
    pending = set(names)
    # mirror_updated has whole seconds: wait a second so a finished sync always shows.
    time.sleep(1.0)
    while pending:
        for name in list(pending):
            shown = session.get(f"{base}/api/v1/repos/admin/{name}").json()["mirror_updated"]
            if shown != before[name]:
                pending.discard(name)
        if time.perf_counter() - began > 300:
            raise RuntimeError(f"{len(pending)} mirrors never synced")
        time.sleep(1.0)
    return time.perf_counter() - began


def probe_until(base: str, stop: threading.Event, latencies: list[float]) -> None:
    """GET /api/v1/version over and over until `stop`; latencies in ms."""
    session = requests.Session()
    while not stop.is_set():
        began = time.perf_counter()
        response = session.get(f"{base}/api/v1/version", timeout=60)
        elapsed = (time.perf_counter() - began) * 1000
        if response.status_code != 200:
            raise RuntimeError(f"GET /api/v1/version: {response.status_code}")
        latencies.append(elapsed)


def run() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-migrations-"))
    try:
        source = scratch / "source.git"
        make_source(source, COMMITS)
        with backing_services() as env:
            env.update(
                {
                    "CODEHOST_IMPORT_LOCAL_PATHS": "true",
                    "CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS": "true",
                    "CODEHOST_MIRROR_MIN_INTERVAL": "10m",
                }
            )
            manage(env, "migrate", "--noinput")
            manage(env, "ensureadmin")
            workers = celery_worker(env, concurrency=WORKER_PROCESSES)
            with web_server(env, workers=4) as base, workers:
                session = requests.Session()
                session.headers.update(basic_header())
                rows = [compare_with_plain_clone(env, session, base, str(source), "local", scratch)]
                # The same history served by our own smart HTTP.
                migrate(session, base, str(source), "served")
                served = f"{base}/admin/served.git"
                rows.append(compare_with_plain_clone(env, session, base, served, "http", scratch))
                print_table("migration of a 1,000-commit repository vs git clone --mirror", rows)

                names = [f"mirror{i}" for i in range(MIRRORS)]
                for name in names:
                    migrate(session, base, str(source), name, mirror=True)
                idle = load(f"{base}/api/v1/version", 300, 4)
                idle_load = os.getloadavg()[0]
                stop = threading.Event()
                latencies: list[float] = []
                probes = [
                    threading.Thread(target=probe_until, args=(base, stop, latencies))
                    for _ in range(4)
                ]
                for probe in probes:
                    probe.start()
                rounds = [
                    (sync_all(session, base, names, source, r), os.getloadavg()[0])
                    for r in range(1, 4)
                ]
                stop.set()
                for probe in probes:
                    probe.join()
                latencies.sort()
                busy = {
                    "requests": len(latencies),
                    "concurrency": 4,
                    "p50": statistics.median(latencies),
                    "p95": latencies[int(len(latencies) * 0.95) - 1],
                }
                print_table(
                    f"mirror-sync of {MIRRORS} mirrors at once "
                    f"({WORKER_PROCESSES} worker processes)",
                    [
                        {"round": i + 1, "seconds until all synced": s, "load 1m": load_1m}
                        for i, (s, load_1m) in enumerate(rounds)
                    ],
                )
                print_table(
                    "GET /api/v1/version (ms)",
                    [
                        {"workers": "idle", **{k: idle[k] for k in busy}, "load 1m": idle_load},
                        {"workers": "busy syncing", **busy, "load 1m": os.getloadavg()[0]},
                    ],
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
