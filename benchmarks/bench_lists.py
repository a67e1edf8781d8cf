"""Every list endpoint of the three services at 8 concurrent clients, on the embedded
default (SQLite, file cache, filesystem broker) and on PostgreSQL + Redis, served by
`manage.py serve` exactly as `make run` runs it; and the footprint of that whole process
group (web, worker, beat and the `serve` parent): PSS from /proc/<pid>/smaps_rollup,
idle and at its highest during the load.

The data set, Harbor's perf figures for a small install, is seeded through the APIs:
50 projects x 20 repositories x 5 artifacts (OCI pushes over /v2/, one tag each),
1,000 code repositories over 10 organizations (git init included), 1,000 products x 3
variants. Only the accounts and tokens of the 8 clients are made through the ORM.

Each row: p50/p95 and req/s at 8 clients, beside the 100 ms p95 target, and the CPU the
whole process group spent per request (its utime+stime over the run, divided by the
requests), which load from other jobs on the machine distorts far less than latency.
"""

import base64
import contextlib
import hashlib
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import requests

from benchmarks.harness import ROOT, backing_services, manage, print_table, run_django
from tests.services.servers import free_port, wait_for_port

CLIENTS = 8
REQUESTS_PER_CLIENT = int(os.environ.get("LISTS_REQUESTS_PER_CLIENT", "25"))
TARGET_P95 = 100.0
# Half of what the same measure gave before the footprint work (2026-11-26: 610 MiB PSS
# idle for 11 processes: serve parent, gunicorn master + 3, worker + 4 children, beat).
FOOTPRINT_TARGET_MIB = 305.0
PROJECTS, REPOSITORIES, ARTIFACTS = 50, 20, 5
ORGS, CODE_REPOS = 10, 1000
PRODUCTS, VARIANTS = 1000, 3
ADMIN_PASSWORD = "bench-admin"
CLIENT_PASSWORD = "Passw0rd1"

ACCOUNTS = f"""
import json
from django.contrib.auth import get_user_model
from codehost.services.accounts import create_token
from storefront.services import apps, stores
from storefront.models import AccessToken, Installation
from config.auth import hash_token

User = get_user_model()
users = [User.objects.create_user(f"client{{n}}", f"c{{n}}@example.com", "{CLIENT_PASSWORD}")
         for n in range({CLIENTS})]
tokens = [create_token(user, "bench", ["all"])[1] for user in users]
store = stores.create_store(owner=users[0], name="Bench", languages=["es", "pt"],
                                main_language="es", currency="ARS", country="AR")
app = apps.create_app(name="Bench", redirect_uri="https://bench.example/cb",
                            scopes=["read_products", "write_products", "write_scripts",
                                    "read_content", "write_content"])
installation = Installation.objects.create(store=store, app=app, scopes=app.scopes)
AccessToken.objects.create(installation=installation, token_hash=hash_token("bench-token"))
print(json.dumps({{"store": store.pk, "tokens": tokens}}))
"""


def basic(username: str, password: str) -> dict:
    encoded = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {encoded}"}


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


# --- the server as `make run` runs it, and its footprint ---------------------------------


@contextlib.contextmanager
def serve(env: dict):
    """`manage.py serve` in its own process group; yields (base URL, group id)."""
    port = free_port()
    env = {**os.environ, **env, "PORT": str(port), "EXTERNAL_URL": f"http://127.0.0.1:{port}"}
    log = Path(env["DATA_DIR"]) / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for_port(port, process, log, seconds=180)
        yield f"http://127.0.0.1:{port}", process.pid
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def group_pids(group: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group:  # pgrp
                pids.append(int(entry.name))
    return pids


def group_pss_mib(group: int) -> tuple[float, int]:
    """PSS of every process of the group, summed (MiB), and how many processes."""
    total, count = 0, 0
    for pid in group_pids(group):
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    count += 1
        except OSError:
            continue
    return total / 1024, count


def group_cpu_seconds(group: int) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in group_pids(group):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def settle(group: int, limit: float = 180.0) -> None:
    """Wait until the group spends under a tenth of a core over 2 s: the worker's and beat's
    start-up and the seeding's after-work otherwise land on the first lists measured."""
    began = time.monotonic()
    while time.monotonic() < began + limit:
        before = group_cpu_seconds(group)
        time.sleep(2)
        if group_cpu_seconds(group) - before < 0.2:
            break
    print(f"  settled in {time.monotonic() - began:.0f} s", flush=True)


class PeakPss:
    """Samples the group's PSS every half second while the load runs; keeps the peak."""

    def __init__(self, group: int):
        self.group, self.peak, self._stop = group, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.wait(0.5):
            self.peak = max(self.peak, group_pss_mib(self.group)[0])

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


# --- seeding through the APIs --------------------------------------------------------------


def parallel(function, items) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        for _ in pool.map(function, items):
            pass


def seed(base: str, store: int, tokens: list[str]) -> dict:
    admin = requests.Session()
    admin.headers.update(basic("admin", ADMIN_PASSWORD))
    config = json.dumps({"architecture": "amd64", "os": "linux"}).encode()
    layer = b"bench layer " * 100

    def project(p: int):
        session = requests.Session()
        session.headers.update(admin.headers)
        name = f"project{p:02d}"
        answer = session.post(
            f"{base}/api/v2.0/projects", json={"project_name": name, "metadata": {"public": "true"}}
        )
        assert answer.status_code == 201, answer.text
        for member in range(CLIENTS):
            session.post(
                f"{base}/api/v2.0/projects/{name}/members",
                json={"role_id": 1 + member % 4, "member_user": {"username": f"client{member}"}},
            )
        for r in range(REPOSITORIES):
            repository = f"{name}/repo{r:02d}"
            for blob in (config, layer):
                started = session.post(f"{base}/v2/{repository}/blobs/uploads/")
                assert started.status_code == 202, started.text
                done = session.put(
                    base + started.headers["Location"]
                    if started.headers["Location"].startswith("/")
                    else started.headers["Location"],
                    params={"digest": sha256(blob)},
                    data=blob,
                )
                assert done.status_code == 201, done.text
            for a in range(ARTIFACTS):
                manifest = {
                    "schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": {
                        "mediaType": "application/vnd.oci.image.config.v1+json",
                        "digest": sha256(config),
                        "size": len(config),
                    },
                    "layers": [
                        {
                            "mediaType": "application/vnd.oci.image.layer.v1.tar",
                            "digest": sha256(layer),
                            "size": len(layer),
                        }
                    ],
                    "annotations": {"bench.artifact": str(a)},
                }
                answer = session.put(
                    f"{base}/v2/{repository}/manifests/v{a}",
                    data=json.dumps(manifest).encode(),
                    headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"},
                )
                assert answer.status_code == 201, answer.text

    stage = time.perf_counter()
    parallel(project, range(PROJECTS))
    print(f"  registry seeded in {time.perf_counter() - stage:.0f} s", flush=True)
    stage = time.perf_counter()
    label = admin.post(
        f"{base}/api/v2.0/labels", json={"name": "bench", "scope": "g", "color": "#00FF00"}
    )
    assert label.status_code == 201, label.text

    gitea = {"Authorization": f"token {tokens[0]}"}
    for o in range(ORGS):
        answer = requests.post(
            f"{base}/api/v1/orgs", headers=gitea, json={"username": f"org{o:02d}"}
        )
        assert answer.status_code == 201, answer.text
    words = ["quartz", "falcon", "ember", "harbor", "nimbus", "cobalt", "willow", "tundra"]

    def code_repo(n: int):
        org, word = f"org{n % ORGS:02d}", words[n % len(words)]
        answer = requests.post(
            f"{base}/api/v1/orgs/{org}/repos",
            headers=gitea,
            json={"name": f"{word}-service-{n:04d}", "description": f"The {word} component {n}"},
        )
        assert answer.status_code == 201, answer.text

    parallel(code_repo, range(CODE_REPOS))
    print(f"  code hosting seeded in {time.perf_counter() - stage:.0f} s", flush=True)
    stage = time.perf_counter()

    shop = {"Authentication": "bearer bench-token", "User-Agent": "Bench (ops@example.com)"}
    categories = []
    for c in range(20):
        answer = requests.post(
            f"{base}/v1/{store}/categories",
            headers=shop,
            json={"name": {"es": f"Cat {c}", "pt": f"Cat {c}"}},
        )
        assert answer.status_code == 201, answer.text
        categories.append(answer.json()["id"])

    def product(n: int):
        answer = requests.post(
            f"{base}/v1/{store}/products",
            headers=shop,
            json={
                "name": {"es": f"Producto {n}", "pt": f"Produto {n}"},
                "description": {"es": "<p>Descripción</p>", "pt": "<p>Descrição</p>"},
                "attributes": [{"es": "Talle", "pt": "Tamanho"}],
                "categories": [categories[n % len(categories)]],
                "variants": [
                    {"price": f"{100 + n % 50}.90", "stock": 10, "sku": f"B-{n}-{v}",
                     "values": [{"es": size, "pt": size}]}
                    for v, size in enumerate(["S", "M", "L"][:VARIANTS])
                ],
            },
        )  # fmt: skip
        assert answer.status_code == 201, answer.text
        return answer.json()["id"]

    with ThreadPoolExecutor(CLIENTS) as pool:
        product_ids = list(pool.map(product, range(PRODUCTS)))
    print(f"  store seeded in {time.perf_counter() - stage:.0f} s", flush=True)
    script = requests.post(
        f"{base}/v1/{store}/scripts",
        headers=shop,
        json={"src": "https://bench.example/s.js", "event": "onload", "where": "store"},
    )
    webhook = requests.post(
        f"{base}/v1/{store}/webhooks",
        headers=shop,
        json={"event": "product/created", "url": "https://bench.example/hook"},
    )
    return {"product": product_ids[0], "script": script.status_code, "hook": webhook.status_code}


# --- the load ----------------------------------------------------------------------------


def endpoints(store: int, product: int) -> list[tuple[str, str, str]]:
    """(service, path, credentials kind) of every list endpoint, as clients page them."""
    p, r = f"project{PROJECTS // 2:02d}", "repo03"
    return [
        ("registry", "/api/v2.0/projects?page_size=100", "basic"),
        ("registry", "/api/v2.0/projects?page_size=10", "basic"),
        ("registry", "/api/v2.0/repositories?page_size=100", "admin"),
        ("registry", f"/api/v2.0/projects/{p}/repositories?page_size=100", "basic"),
        (
            "registry",
            f"/api/v2.0/projects/{p}/repositories/{r}/artifacts"
            "?with_tag=true&with_label=true&page_size=100",
            "basic",
        ),
        ("registry", f"/api/v2.0/projects/{p}/members", "basic"),
        ("registry", f"/api/v2.0/projects/{p}/logs?page_size=100", "admin"),
        ("registry", "/api/v2.0/audit-logs?page_size=100", "admin"),
        ("registry", "/api/v2.0/search?q=repo1", "basic"),
        ("registry", "/api/v2.0/users?page_size=100", "admin"),
        ("registry", "/api/v2.0/users/search?username=client", "basic"),
        ("registry", "/api/v2.0/usergroups", "admin"),
        ("registry", "/api/v2.0/robots", "admin"),
        ("registry", "/api/v2.0/labels?scope=g", "basic"),
        ("registry", "/api/v2.0/system/gc", "admin"),
        ("codehost", "/api/v1/repos/search?limit=50", "token"),
        ("codehost", "/api/v1/repos/search?q=falcon&limit=50", "token"),
        ("codehost", "/api/v1/repos/search?limit=50", "anonymous"),
        ("codehost", "/api/v1/user/repos?limit=50", "token"),
        ("codehost", "/api/v1/orgs/org03/repos?limit=50", "token"),
        ("codehost", "/api/v1/orgs?limit=50", "token"),
        ("codehost", "/api/v1/orgs/org03/members", "org-owner"),
        ("codehost", "/api/v1/orgs/org03/teams", "org-owner"),
        ("codehost", "/api/v1/user/teams", "token"),
        ("codehost", "/api/v1/user/starred", "token"),
        ("codehost", "/api/v1/repos/org03/harbor-service-0003/forks", "token"),
        ("codehost", "/api/v1/repos/org03/harbor-service-0003/collaborators", "token"),
        ("storefront", f"/v1/{store}/products?per_page=30", "shop"),
        ("storefront", f"/v1/{store}/products?per_page=200", "shop"),
        ("storefront", f"/v1/{store}/products?per_page=30&page=20", "shop"),
        ("storefront", f"/v1/{store}/products/{product}/variants", "shop"),
        ("storefront", f"/v1/{store}/products/{product}/images", "shop"),
        ("storefront", f"/v1/{store}/categories", "shop"),
        ("storefront", f"/v1/{store}/scripts", "shop"),
        ("storefront", f"/v1/{store}/webhooks", "shop"),
    ]


def credentials(kind: str, number: int, tokens: list[str]) -> dict:
    return {
        "basic": lambda: basic(f"client{number}", CLIENT_PASSWORD),
        "admin": lambda: basic("admin", ADMIN_PASSWORD),
        "token": lambda: {"Authorization": f"token {tokens[number]}"},
        "org-owner": lambda: {"Authorization": f"token {tokens[0]}"},
        "anonymous": dict,
        "shop": lambda: {
            "Authentication": "bearer bench-token",
            "User-Agent": "Bench (ops@example.com)",
        },
    }[kind]()


def drive(url: str, headers_for, requests_per_client: int = REQUESTS_PER_CLIENT) -> dict:
    """8 clients, each on one kept-alive connection, reading each whole answer. The clients
    are http.client, not requests: requests spends ~1.5 ms of CPU per call (0.45 for
    http.client), CPU taken from the 2 cores the server is measured on; the clients' own
    CPU per request is reported beside the server's."""
    latencies, failures = [], []
    lock = threading.Lock()
    target = urlsplit(url)
    path = target.path + (f"?{target.query}" if target.query else "")

    def client(number: int):
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
        # The headers requests would send, so the server does the same work.
        headers = {"Accept": "*/*", "Accept-Encoding": "gzip, deflate", **headers_for(number)}
        connection.request("GET", path, headers=headers)  # connection open
        connection.getresponse().read()
        barrier.wait()
        for _ in range(requests_per_client):
            began = time.perf_counter()
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            elapsed = (time.perf_counter() - began) * 1000
            with lock:
                latencies.append(elapsed)
                if response.status != 200:
                    failures.append(f"{response.status} {url}: {body[:200]!r}")
        connection.close()

    barrier = threading.Barrier(CLIENTS + 1)
    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    barrier.wait()
    began, client_cpu = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.join()
    wall, client_cpu = time.perf_counter() - began, time.process_time() - client_cpu
    if failures:
        raise RuntimeError(f"{len(failures)} failed requests, e.g. {failures[0]}")
    latencies.sort()
    return {
        "req/s": len(latencies) / wall,
        "p50": statistics.median(latencies),
        "p95": latencies[int(len(latencies) * 0.95) - 1],
        "client CPU ms/req": client_cpu * 1000 / len(latencies),
    }


def measure(backend: str, env: dict) -> tuple[list[dict], dict]:
    env = {
        **env,
        "ADMIN_PASSWORD": ADMIN_PASSWORD,
        "STOREFRONT_RATE_LIMIT_SIZE": "100000000",
        "STOREFRONT_WEBHOOK_ALLOW_INSECURE": "true",
    }
    manage(env, "migrate", "--noinput")
    manage(env, "ensureadmin")
    accounts = json.loads(run_django(env, ACCOUNTS).strip().splitlines()[-1])
    store, tokens = accounts["store"], accounts["tokens"]
    rows = []
    with serve(env) as (base, group):
        began = time.perf_counter()
        seeded = seed(base, store, tokens)
        seconds = time.perf_counter() - began
        print(f"{backend}: seeded through the APIs in {seconds:.0f} s", flush=True)
        settle(group)
        idle, processes = group_pss_mib(group)
        with PeakPss(group) as peak:
            for service, path, kind in endpoints(store, seeded["product"]):
                if os.environ.get("LISTS_ONLY") and os.environ["LISTS_ONLY"] not in path:
                    continue
                # Each client's first request signs in (a password hash, about half a second
                # of CPU): made before the CPU is read, so it is not counted as the list's.
                for number in range(CLIENTS):
                    requests.get(base + path, headers=credentials(kind, number, tokens))
                cpu = group_cpu_seconds(group)
                stats = drive(base + path, lambda n, k=kind: credentials(k, n, tokens))
                spent = group_cpu_seconds(group) - cpu
                rows.append(
                    {
                        "backend": backend,
                        "service": service,
                        "GET": path.replace(f"/v1/{store}/", "/v1/{store}/", 1),
                        **stats,
                        "target p95": TARGET_P95,
                        "CPU ms/req": spent * 1000 / ((REQUESTS_PER_CLIENT + 1) * CLIENTS),
                        "met": "yes" if stats["p95"] < TARGET_P95 else "NO",
                    }
                )
        footprint = {
            "backend": backend,
            "processes": processes,
            "PSS idle MiB": idle,
            "PSS peak under load MiB": peak.peak,
            "target MiB": FOOTPRINT_TARGET_MIB,
        }
    return rows, footprint


@contextlib.contextmanager
def embedded_default():
    with tempfile.TemporaryDirectory(prefix="bench-lists-") as data_dir:
        yield {"DATA_DIR": data_dir, "DATABASE_URL": "", "REDIS_URL": "", "CELERY_BROKER_URL": ""}


def run() -> None:
    load_before = os.getloadavg()[0]
    rows, footprints = [], []
    backends = os.environ.get("LISTS_BACKENDS", "sqlite,postgres").split(",")
    for backend in backends:
        context = embedded_default() if backend == "sqlite" else backing_services()
        with context as env:
            backend_rows, footprint = measure(backend, env)
            rows += backend_rows
            footprints.append(footprint)
            print_table(f"{backend} (machine load {os.getloadavg()[0]:.1f})", backend_rows)
            print_table(f"{backend} footprint", [footprint])
    print_table(
        f"list endpoints, {CLIENTS} clients x {REQUESTS_PER_CLIENT} requests, "
        f"`manage.py serve` (ms; machine load {load_before:.1f} -> {os.getloadavg()[0]:.1f})",
        rows,
    )
    print_table("footprint of `make run`'s process group (PSS)", footprints)
    missed = [row for row in rows if row["met"] != "yes"]
    print(f"\np95 under {TARGET_P95:.0f} ms: {len(rows) - len(missed)} of {len(rows)}")
