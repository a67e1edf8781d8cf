"""Audit log: what recording pulls costs a manifest GET, and the audit-log lists on
Harbor's perf "small" volume (100,000 records over 100 projects).

Manifest GETs alternate between rounds with pull records off (`disabled_audit_log_event_types
= pull_artifact`: the pull statement without the insert) and on, so that the machine's load
hits both alike.
"""

import base64
import statistics

import requests

from benchmarks.bench_oci import NAME, push_small_image
from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server

ADMIN = ("admin", "bench-admin")
BASIC = "Basic " + base64.b64encode(b"admin:bench-admin").decode()
ROUNDS = 5
REQUESTS = 400
CONCURRENCY = 4
RECORDS = 100_000

SEED = f"""
from datetime import UTC, datetime, timedelta
from django.contrib.auth import get_user_model
from registry.services.projects import create_project
from registry.models import AuditLog
admin = get_user_model().objects.get(username='admin')
projects = [create_project(admin, 'bench', as_admin=True)]
projects += [create_project(admin, f'p{{n:03d}}', as_admin=True) for n in range(99)]
start = datetime(2026, 1, 1, tzinfo=UTC)
rows = (
    AuditLog(
        project_id=projects[n % 100].pk,
        operation=('pull', 'create', 'delete')[n % 3],
        resource_type='artifact',
        resource=f'{{projects[n % 100].name}}/app{{n % 10}}:v{{n}}',
        username=('admin', 'ci', 'robot$bench+ci')[n % 3],
        op_time=start + timedelta(seconds=n),
    )
    for n in range({RECORDS})
)
AuditLog.objects.bulk_create(rows, batch_size=5000)
"""


def set_pull_records(base: str, enabled: bool) -> None:
    value = "" if enabled else "pull_artifact"
    answer = requests.put(
        f"{base}/api/v2.0/configurations",
        json={"disabled_audit_log_event_types": value},
        auth=ADMIN,
    )
    answer.raise_for_status()


def manifest_headers(base: str) -> dict:
    issued = requests.get(
        f"{base}/service/token",
        params={"service": "harbor-registry", "scope": f"repository:{NAME}:pull"},
        auth=ADMIN,
    )
    return {
        "Accept": "application/vnd.oci.image.manifest.v1+json",
        "Authorization": f"Bearer {issued.json()['token']}",
    }


def manifest_rows(base: str) -> list[dict]:
    session = requests.Session()
    session.auth = ADMIN
    push_small_image(session, base)
    headers = manifest_headers(base)
    url = f"{base}/v2/{NAME}/manifests/v1"
    results = {False: [], True: []}
    for _ in range(ROUNDS):
        for enabled in (False, True):
            set_pull_records(base, enabled)
            results[enabled].append(load(url, REQUESTS, CONCURRENCY, headers=headers))
    rows = []
    for enabled, label in ((False, "pull records off"), (True, "pull records on")):
        runs = results[enabled]
        rows.append(
            {
                "manifest GET": label,
                "rps median": statistics.median(r["rps"] for r in runs),
                "p50 ms median": statistics.median(r["p50"] for r in runs),
                "p95 ms median": statistics.median(r["p95"] for r in runs),
            }
        )
    return rows


def list_rows(base: str) -> list[dict]:
    rows = []
    for label, path in (
        ("audit-logs, page of 100", "/api/v2.0/audit-logs?page_size=100"),
        (
            "audit-logs, q username + time range",
            "/api/v2.0/audit-logs?page_size=100"
            "&q=username=ci,op_time=[2026-01-01T01:00:00~2026-01-01T20:00:00]",
        ),
        ("project logs, page of 100", "/api/v2.0/projects/p050/logs?page_size=100"),
    ):
        url = base + path
        requests.get(url, auth=ADMIN).raise_for_status()
        stats = load(url, 200, CONCURRENCY, headers={"Authorization": BASIC})
        rows.append({"endpoint": label, **stats})
    return rows


def run() -> None:
    with backing_services() as env:
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        run_django(env, SEED)
        with web_server({**env, "WEB_THREADS": "4"}, workers=2) as base:
            manifests = manifest_rows(base)
            lists = list_rows(base)
        print_table(
            f"manifest GET with Bearer token ({ROUNDS} alternating rounds of {REQUESTS}"
            f" requests, {CONCURRENCY} clients; PostgreSQL)",
            manifests,
        )
        print_table(f"audit-log lists over {RECORDS:,} records (ms)", lists)
