"""What every benchmark needs: real services, a real server, a load generator, a table.

The server runs as `make run` would (gunicorn), on PostgreSQL and Redis started on
loopback by the same launcher the tests use.
"""

import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

from tests.services.servers import Services, free_port, start_postgres, start_redis, wait_for_port

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def backing_services():
    """PostgreSQL and Redis on loopback; yields the environment pointing at them."""
    services = Services()
    try:
        database_url = start_postgres(services)
        redis_url = start_redis(services)
        env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "DATA_DIR": str(services.tempdir("bench-data-")),
            "ADMIN_PASSWORD": "bench-admin",
        }
        yield env
    finally:
        services.stop()


def manage(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def run_django(env: dict, code: str) -> str:
    """Run Python code with Django set up against `env` (for seeding)."""
    script = (
        "import os, django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
        "django.setup()\n" + code
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    if result.returncode:
        raise RuntimeError(result.stderr[-4000:])
    return result.stdout


@contextlib.contextmanager
def web_server(env: dict, workers: int = 3):
    port = free_port()
    log = Path(env["DATA_DIR"]) / "gunicorn.log"
    process = subprocess.Popen(
        [
            os.path.join(os.path.dirname(sys.executable), "gunicorn"),
            "-c",
            "python:config.gunicorn",
            "--workers",
            str(workers),
            "--access-logfile",
            "/dev/null",
            "config.wsgi",
        ],
        cwd=ROOT,
        env={**os.environ, **env, "PORT": str(port)},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def load(
    url: str,
    requests_total: int,
    concurrency: int,
    headers: dict | None = None,
    method: str = "GET",
    expect: int = 200,
) -> dict:
    """Send `requests_total` requests from `concurrency` threads; latency stats in ms."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    per_thread = max(requests_total // concurrency, 1)

    def worker():
        session = requests.Session()
        for _ in range(per_thread):
            start = time.perf_counter()
            response = session.request(method, url, headers=headers, timeout=60)
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                latencies.append(elapsed)
                if response.status_code != expect:
                    errors.append(f"{response.status_code}: {response.text[:200]}")

    # One warm-up request per thread opens connections and fills caches.
    requests.request(method, url, headers=headers, timeout=60)
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    if errors:
        raise RuntimeError(f"{len(errors)} unexpected answers from {url}, e.g. {errors[0]}")
    latencies.sort()
    return {
        "requests": len(latencies),
        "concurrency": concurrency,
        "rps": len(latencies) / wall,
        "p50": statistics.median(latencies),
        "p95": latencies[int(len(latencies) * 0.95) - 1],
    }


def print_table(title: str, rows: list[dict]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    cells = [[_fmt(row.get(column)) for column in columns] for row in rows]
    widths = [max(len(column), *(len(row[i]) for row in cells)) for i, column in enumerate(columns)]
    print(f"\n## {title}")
    print("| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    return "" if value is None else str(value)
