"""The dashboard on the admin index: figures per service, read in a constant number of
queries, matching what the services' APIs count."""

import base64
import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from codehost.models import MigrationTask, Mirror
from config.tasks import BEAT_KEY, HEARTBEAT_KEY, beat_tick
from registry.distribution.models import Upload
from registry.gc.models import GCExecution
from storefront.models import Delivery
from storefront.services import suspension
from tests.admin_console.conftest import STAFF_PASSWORD
from tests.codehost.factories import OrgFactory, RepositoryFactory
from tests.codehost_migrations.factories import MirrorFactory
from tests.conftest import wait_until
from tests.registry.factories import ProjectFactory, push
from tests.storefront.factories import InstallationFactory, StoreFactory

pytestmark = pytest.mark.django_db


def figures(html: str) -> dict[str, str]:
    """data-figure slug -> the figure's text, from the rendered dashboard."""
    found = re.findall(
        r'data-figure="([^"]+)">\s*<dt>[^<]*</dt>\s*<dd>(?:<a href="[^"]*">)?([^<]*)', html
    )
    return {slug: value.strip() for slug, value in found}


def basic(username: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{STAFF_PASSWORD}".encode()).decode()


def seed():
    first = ProjectFactory(name="alpha")
    second = ProjectFactory(name="beta")
    push(first, "web", "v1", size=5000)
    push(first, "web", "v2", size=3000)
    push(second, "db", "v1", size=1000)
    Upload.objects.create(repository_name="alpha/web", offset=2048)
    org = OrgFactory(name="acme")
    RepositoryFactory(owner=org, name="one")
    overdue = MirrorFactory(repo__owner=org, repo__name="mirror")
    Mirror.objects.filter(pk=overdue.pk).update(
        next_update=timezone.now() - timedelta(hours=1), last_error="fetch failed"
    )
    store = StoreFactory()
    StoreFactory()
    suspension.suspend(store.pk, reason="test")
    installation = InstallationFactory()
    now = timezone.now()
    for status, url, finished in (
        (Delivery.PENDING, "https://a.example/hook", None),
        (Delivery.FAILED, "https://bad.example/hook", now),
        (Delivery.FAILED, "https://bad.example/hook", now - timedelta(hours=2)),
        (Delivery.FAILED, "https://old.example/hook", now - timedelta(days=3)),
    ):
        Delivery.objects.create(
            store=installation.store,
            app=installation.app,
            event="product/created",
            object_id=1,
            url=url,
            body="{}",
            status=status,
            next_attempt_at=now,
            finished_at=finished,
        )
    return org


def test_figures_match_the_apis_counts(console, operator):
    org = seed()
    MigrationTask.objects.create(
        doer=operator, owner=org, repo_name="x", clone_addr="https://e.example/x", service="git"
    )
    MigrationTask.objects.create(
        doer=operator,
        owner=org,
        repo_name="y",
        clone_addr="https://e.example/y",
        service="git",
        status=MigrationTask.Status.FAILED,
        finished=timezone.now(),
    )
    page = console.get("/admin/")
    assert page.status_code == 200
    html = page.content.decode()
    shown = figures(html)

    stats = console.get("/api/v2.0/statistics", HTTP_AUTHORIZATION=basic("operator")).json()
    assert shown["projects"] == str(stats["total_project_count"]) == "2"
    assert shown["repositories"] in (str(stats["total_repo_count"]), "2")
    assert stats["total_storage_consumption"] == 9000
    assert shown["storage-used"] == "8.8 KiB"
    assert shown["artifacts"] == "3"
    assert shown["uploads-in-progress"] == "1 (2.0 KiB received)"
    assert 'data-table="largest-projects"' in html
    assert html.index(">alpha<") < html.index(">beta<")

    repos = console.get("/api/v1/repos/search?limit=1", HTTP_AUTHORIZATION=basic("operator"))
    assert shown["organizations"] == "1"
    assert re.search(
        r'data-section="code-hosting".*?data-figure="repositories">\s*<dt>[^<]*</dt>\s*'
        rf'<dd><a href="[^"]*">{repos.headers["X-Total-Count"]}<',
        html,
        re.S,
    )
    assert shown["migrations-running"] == "1"
    assert shown["migrations-failed-24-h"] == "1"
    assert shown["mirrors-overdue"] == "1"
    assert shown["mirrors-whose-last-sync-failed"] == "1"

    assert shown["stores"] == "3"  # two here, one of the installation
    assert shown["stores-suspended"] == "1"
    assert shown["installations"] == "1"
    assert shown["deliveries-pending"] == "1"
    assert shown["deliveries-failed-24-h"] == "2"
    failing = html[html.index('data-table="failing-receivers-24-h"') :]
    assert "https://bad.example/hook" in failing.split("</table>")[0]
    assert "https://old.example/hook" not in failing.split("</table>")[0]


def test_platform_health_worker_beat_and_queues(console):
    cache.set(HEARTBEAT_KEY, {"at": timezone.now().timestamp() - 5, "pid": 1}, None)
    cache.delete(BEAT_KEY)
    shown = figures(console.get("/admin/").content.decode())
    assert shown["worker-heartbeat"] == "5 s ago"
    assert shown["beats-last-run-seen-by-a-worker"] == "never"
    assert shown["database"] == "ok" and shown["cache"] == "ok"
    assert {"queue-default", "queue-git", "queue-webhooks"} <= set(shown)
    assert all(shown[f"queue-{name}"].isdigit() for name in ("default", "git", "webhooks"))


def test_an_empty_site_renders(console):
    html = console.get("/admin/").content.decode()
    assert "no failed deliveries in the last 24 hours" in html
    assert figures(html)["projects"] == "0"


def test_the_dashboard_reads_a_constant_number_of_queries(console, django_assert_max_num_queries):
    seed()
    console.get("/admin/")
    with django_assert_max_num_queries(25) as few:
        console.get("/admin/")
    for n in range(5):
        ProjectFactory(name=f"more{n}")
        StoreFactory()
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert console.get("/admin/").status_code == 200


def test_every_link_of_the_dashboard_opens_its_list(console):
    seed()
    html = console.get("/admin/").content.decode()
    dashboard = html[html.index('id="dashboard"') : html.index('id="content-related"')]
    targets = set(re.findall(r'href="([^"]+)"', dashboard))
    assert len(targets) > 15
    for target in targets:
        answer = console.get(target.replace("&amp;", "&"))
        assert answer.status_code == 200, target


def test_the_garbage_collection_spot_shows_the_last_run(console):
    assert figures(console.get("/admin/").content.decode())["last-garbage-collection"] == "never"
    GCExecution.objects.create(status="Error", active=None, freed_bytes=3 * 1024 * 1024)
    shown = figures(console.get("/admin/").content.decode())
    assert shown["last-garbage-collection"].startswith("Error, ")
    assert shown["last-garbage-collection"].endswith("(3.0 MiB freed)")


@pytest.mark.worker
def test_beat_tick_run_by_a_worker_shows_on_the_dashboard(celery_worker, console):
    from config.celery import app

    entry = app.conf.beat_schedule["config-beat-tick"]
    assert (entry["task"], entry["schedule"]) == ("config.beat_tick", 30.0)
    cache.delete(BEAT_KEY)
    beat_tick.delay()
    wait_until(lambda: cache.get(BEAT_KEY), 30, message="a worker to run the beat tick")
    shown = figures(console.get("/admin/").content.decode())
    assert shown["beats-last-run-seen-by-a-worker"] in ("0 s ago", "1 s ago", "2 s ago")
    assert shown["worker-heartbeat"].endswith("s ago")


def test_an_unreachable_broker_is_shown_not_a_500(console, monkeypatch):
    from config.celery import app

    monkeypatch.setattr(app.conf, "broker_read_url", "redis://127.0.0.1:9/0")
    page = console.get("/admin/")
    assert page.status_code == 200
    shown = figures(page.content.decode())
    assert shown["broker"].startswith("broker unreachable")
    assert "queue-default" not in shown
