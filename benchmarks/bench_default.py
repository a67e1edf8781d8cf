"""The embedded default of `make run` (SQLite in WAL mode, the file cache, no Redis) under
8 concurrent clients: a list endpoint and a write endpoint per service, through gunicorn
as `make run` starts it (3 processes x 8 threads), with the count of `database is locked`
errors, which must be zero.

Each client has its own account or token (as separate users would); the credentials are
verified once before the load, as a running server has them cached.
"""

import base64
import contextlib
import itertools
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import requests

from benchmarks.harness import manage, print_table, run_django, web_server

CLIENTS = 8
REQUESTS_PER_CLIENT = 40

SEED = f"""
import json
from django.contrib.auth import get_user_model
from codehost.services.accounts import create_token
from codehost.models import Repository
from storefront.services import apps, stores
from storefront.models import AccessToken, Installation
from config.auth import hash_token

User = get_user_model()
users = [User.objects.create_user(f"client{{n}}", f"c{{n}}@example.com", "Passw0rd1")
         for n in range({CLIENTS})]
tokens = [create_token(user, "bench", ["all"])[1] for user in users]
store = stores.create_store(owner=users[0], name="Bench", languages=["es"],
                            main_language="es", currency="ARS", country="AR")
app = apps.create_app(name="Bench", redirect_uri="https://bench.example/cb",
                      scopes=["read_products", "write_products"])
installation = Installation.objects.create(store=store, app=app, scopes=app.scopes)
AccessToken.objects.create(installation=installation, token_hash=hash_token("bench-token"))
print(json.dumps({{"store": store.pk, "tokens": tokens}}))
"""


@contextlib.contextmanager
def embedded_default():
    """The environment of `make run` with no settings: only DATA_DIR (a fresh one)."""
    with tempfile.TemporaryDirectory(prefix="bench-default-") as data_dir:
        env = {"DATA_DIR": data_dir, "DATABASE_URL": "", "REDIS_URL": "", "CELERY_BROKER_URL": ""}
        # Room in the store API's bucket for the load (the limiter still runs).
        env["STOREFRONT_RATE_LIMIT_SIZE"] = "100000000"
        yield env


def drive(base: str, requests_for_client) -> dict:
    """CLIENTS threads, each sending its REQUESTS_PER_CLIENT requests; stats in ms."""
    latencies, failures, locked = [], [], [0]
    lock = threading.Lock()

    def client(number: int):
        session = requests.Session()
        for method, path, headers, body in requests_for_client(number):
            began = time.perf_counter()
            response = session.request(method, base + path, headers=headers, json=body)
            elapsed = (time.perf_counter() - began) * 1000
            with lock:
                latencies.append(elapsed)
                if "database is locked" in response.text:
                    locked[0] += 1
                if response.status_code >= 300:
                    failures.append(f"{response.status_code} {path}: {response.text[:200]}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    latencies.sort()
    return {
        "requests": len(latencies),
        "req/s": len(latencies) / wall,
        "p50": statistics.median(latencies),
        "p95": latencies[int(len(latencies) * 0.95) - 1],
        "errors": len(failures),
        "database is locked": locked[0],
        "_failures": failures,
    }


def run() -> None:
    with embedded_default() as env:
        manage(env, "migrate", "--noinput")
        seeded = json.loads(run_django(env, SEED).strip().splitlines()[-1])
        store, tokens = seeded["store"], seeded["tokens"]
        basic = [
            {"Authorization": "Basic " + base64.b64encode(f"client{n}:Passw0rd1".encode()).decode()}
            for n in range(CLIENTS)
        ]
        gitea = [{"Authorization": f"token {token}"} for token in tokens]
        shop = {"Authentication": "bearer bench-token", "User-Agent": "Bench (ops@example.com)"}
        counter = itertools.count()

        def each(method, path, headers, body=None):
            """One client's requests; a callable body is made per request (unique names)."""

            def requests_for(number):
                for _ in range(REQUESTS_PER_CLIENT):
                    sent = body(number) if callable(body) else body
                    yield (
                        method,
                        path,
                        headers[number] if isinstance(headers, list) else headers,
                        sent,
                    )

            return requests_for

        cases = [
            (
                "registry",
                "POST /api/v2.0/projects",
                each(
                    "POST",
                    "/api/v2.0/projects",
                    basic,
                    lambda n: {"project_name": f"p{n}-{next(counter)}"},
                ),
            ),
            (
                "registry",
                "GET /api/v2.0/projects",
                each("GET", "/api/v2.0/projects?page_size=100", basic),
            ),
            (
                "codehost",
                "POST /api/v1/user/repos",
                each("POST", "/api/v1/user/repos", gitea, lambda n: {"name": f"r{next(counter)}"}),
            ),
            (
                "codehost",
                "GET /api/v1/user/repos",
                each("GET", "/api/v1/user/repos?limit=50", gitea),
            ),
            (
                "storefront",
                "POST /v1/{store}/products",
                each(
                    "POST", f"/v1/{store}/products", shop, lambda n: {"name": f"P{next(counter)}"}
                ),
            ),
            (
                "storefront",
                "GET /v1/{store}/products",
                each("GET", f"/v1/{store}/products?per_page=50", shop),
            ),
        ]
        rows, failures = [], []
        log = Path(env["DATA_DIR"]) / "gunicorn.log"
        with web_server(env, workers=3) as base:
            for n in range(CLIENTS):  # credentials verified once, then cached
                requests.get(f"{base}/api/v2.0/users/current", headers=basic[n]).raise_for_status()
            for service, endpoint, requests_for in cases:
                stats = drive(base, requests_for)
                failures += stats.pop("_failures")
                rows.append({"service": service, "endpoint": endpoint, **stats})
        server_locked = log.read_text(errors="replace").count("database is locked")
        print_table(
            f"embedded default (SQLite, file cache), {CLIENTS} clients x "
            f"{REQUESTS_PER_CLIENT} requests each (ms)",
            rows,
        )
        print(f"\n`database is locked` in the server log: {server_locked}")
        if failures or server_locked or any(row["database is locked"] for row in rows):
            raise SystemExit(f"{len(failures)} failed requests, e.g. {failures[:3]}")
