"""The admin dashboard (the admin index) on Harbor's perf "small" registry data set.

The registry holds bench_registry's seed (100 projects x 100 repositories x 10 artifacts x
5 tags); code hosting and the storefront get a comparable load: 10,000 repositories in
100 organizations with 1,000 mirrors and 1,000 migrations, 1,000 stores with an app
installed in each and 100,000 webhook deliveries (1,000 failed in the last day). The
page is fetched signed in, one client at a time, through gunicorn; the SQL queries and
the CPU per render are measured in-process. Goal: under 200 ms.
"""

import json
import os

from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server

ADMIN_PASSWORD = "bench-admin"
ORGS = 100
REPOS_PER_ORG = 100
STORES = 1000
DELIVERIES_PER_STORE = 100


def seed_services() -> None:
    """Code hosting and storefront rows beside the registry's (run inside Django)."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from codehost.models import MigrationTask, Mirror, Owner, Repository
    from storefront.models import App, Delivery, Installation, Store

    if Owner.objects.filter(kind=Owner.Kind.ORGANIZATION).exists():
        print("seed: code hosting and storefront rows already there")
        return
    admin = get_user_model().objects.get(username="admin")
    now = timezone.now()
    with transaction.atomic():
        orgs = Owner.objects.bulk_create(
            Owner(kind=Owner.Kind.ORGANIZATION, name=f"org{n:03d}", lower_name=f"org{n:03d}")
            for n in range(ORGS)
        )
        repos = Repository.objects.bulk_create(
            Repository(owner=org, name=f"repo{r:03d}", lower_name=f"repo{r:03d}")
            for org in orgs
            for r in range(REPOS_PER_ORG)
        )
        Mirror.objects.bulk_create(
            Mirror(
                repo=repo,
                interval_seconds=3600,
                next_update=now + timedelta(minutes=n % 120 - 60),
                last_error="" if n % 10 else "fetch failed",
            )
            for n, repo in enumerate(repos[::10])
        )
        MigrationTask.objects.bulk_create(
            MigrationTask(
                doer=admin,
                owner=orgs[n % ORGS],
                repo_name=f"m{n}",
                clone_addr="https://git.example/m.git",
                service="git",
                status=MigrationTask.Status.FAILED if n % 4 else MigrationTask.Status.SUCCEEDED,
                created=now - timedelta(hours=n % 48),
                finished=now - timedelta(hours=n % 48),
            )
            for n in range(1000)
        )
        app = App.objects.create(
            name="Bench", client_secret="s" * 48, redirect_uri="https://a.example/"
        )
        stores = Store.objects.bulk_create(
            Store(owner=admin, name={"es": f"T{n}"}, languages=["es"], main_language="es")
            for n in range(STORES)
        )
        Installation.objects.bulk_create(Installation(store=store, app=app) for store in stores)
        for start in range(0, STORES, 100):
            Delivery.objects.bulk_create(
                Delivery(
                    store=store,
                    app=app,
                    event="product/updated",
                    object_id=n,
                    url=f"https://hooks{n % 50}.example/h",
                    body="{}",
                    status=Delivery.FAILED if n == 0 else Delivery.DELIVERED,
                    next_attempt_at=now,
                    finished_at=now - timedelta(hours=n % 30),
                )
                for store in stores[start : start + 100]
                for n in range(DELIVERIES_PER_STORE)
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


MEASURE = """
import json, time
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client()
client.force_login(get_user_model().objects.get(username="admin"))
client.get("/admin/")
with CaptureQueriesContext(connection) as context:
    response = client.get("/admin/")
assert response.status_code == 200
queries = len(context)
sql_ms = sum(float(query["time"]) for query in context.captured_queries) * 1000
slowest = max(context.captured_queries, key=lambda query: float(query["time"]))
began = time.process_time()
for _ in range(20):
    client.get("/admin/")
cpu_ms = (time.process_time() - began) * 1000 / 20
print("slowest query:", float(slowest["time"]) * 1000, "ms:", slowest["sql"][:160])
print(json.dumps({"queries": queries, "sql_ms": sql_ms, "cpu_ms": cpu_ms}))
"""


def _signed_in_cookies(base: str) -> dict:
    import requests

    session = requests.Session()
    session.get(f"{base}/admin/login/", timeout=60)
    answer = session.post(
        f"{base}/admin/login/?next=/admin/",
        data={
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "username": "admin",
            "password": ADMIN_PASSWORD,
            "next": "/admin/",
        },
        timeout=60,
    )
    if not answer.url.endswith("/admin/") or "Site administration" not in answer.text:
        raise RuntimeError("could not sign in to the admin")
    return session.cookies.get_dict()


def run() -> None:
    """REGISTRY_BENCH_DATABASE_URL keeps the seeded database between runs (bench_registry)."""
    with backing_services() as env:
        reused = os.environ.get("REGISTRY_BENCH_DATABASE_URL")
        if reused:
            env = {**env, "DATABASE_URL": reused}
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        run_django(env, "from benchmarks.bench_registry import seed; seed()")
        run_django(env, "from benchmarks.bench_dashboard import seed_services; seed_services()")
        measured = run_django(env, MEASURE).strip().splitlines()
        print(*measured[:-1], sep="\n")
        in_process = json.loads(measured[-1])
        with web_server(env) as base:
            cookies = _signed_in_cookies(base)
            header = "; ".join(f"{name}={value}" for name, value in cookies.items())
            rows = [
                {"page": "/admin/ (dashboard)", **in_process, **stats}
                for stats in (
                    load(f"{base}/admin/", 100, 1, headers={"Cookie": header}),
                    load(f"{base}/admin/", 200, 4, headers={"Cookie": header}),
                )
            ]
        print_table("admin dashboard, registry perf 'small' + code hosting + storefront, ms", rows)
