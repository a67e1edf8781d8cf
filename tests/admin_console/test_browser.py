"""The console in real headless Chromium (Debian's package, driven by Playwright): an
administrator signs in and works through the pages as a person would."""

import base64

import pytest
import requests
from django.conf import settings
from django.utils import timezone

from codehost.models import Mirror
from registry.distribution.models import Blob
from storefront.models import Delivery
from tests.admin_console.conftest import STAFF_PASSWORD
from tests.codehost.factories import OrgFactory, RepositoryFactory
from tests.codehost_migrations.conftest import basic_client, git
from tests.conftest import wait_until
from tests.registry.factories import ProjectFactory, push
from tests.storefront.factories import InstallationFactory, issue_token
from tests.storefront_webhooks.factories import WebhookFactory

pytestmark = pytest.mark.django_db(transaction=True)


def sign_in(tab, live_server, username: str) -> None:
    tab.goto(f"{live_server.url}/admin/login/?next=/admin/")
    tab.fill("#id_username", username)
    tab.fill("#id_password", STAFF_PASSWORD)
    tab.click("input[type=submit]")
    tab.wait_for_load_state()


@pytest.fixture
def console_page(page, live_server, operator):
    sign_in(page, live_server, "operator")
    assert page.url == f"{live_server.url}/admin/"
    return page


def figure(tab, slug: str, section: str = "") -> str:
    scope = f'[data-section="{section}"] ' if section else ""
    return tab.inner_text(f'{scope}[data-figure="{slug}"] dd').strip()


def run_action(tab, live_server, model: str, pk: int, action: str) -> str:
    tab.goto(f"{live_server.url}/admin/{model}/")
    tab.check(f'input.action-select[value="{pk}"]')
    tab.select_option('select[name="action"]', action)
    tab.click('button[name="index"]')
    tab.wait_for_load_state()
    return tab.inner_text("ul.messagelist")


def basic(username: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{STAFF_PASSWORD}".encode()).decode()


def test_dashboard_figures_match_the_apis(console_page, live_server):
    project = ProjectFactory(name="shown")
    push(project, "app", "v1", size=2048)
    push(ProjectFactory(name="other"), "db", "v1")
    RepositoryFactory(owner=OrgFactory(name="acme"), name="one")
    console_page.goto(f"{live_server.url}/admin/")
    auth = {"Authorization": basic("operator")}
    stats = requests.get(f"{live_server.url}/api/v2.0/statistics", headers=auth).json()
    assert figure(console_page, "projects") == str(stats["total_project_count"])
    assert figure(console_page, "repositories", "registry") == str(stats["total_repo_count"])
    repos = requests.get(f"{live_server.url}/api/v1/repos/search?limit=1", headers=auth)
    assert figure(console_page, "repositories", "code-hosting") == repos.headers["X-Total-Count"]
    assert figure(console_page, "database", "platform") == "ok"
    assert "shown" in console_page.inner_text('[data-table="largest-projects"]')


def test_a_system_written_record_cannot_be_added_or_edited(console_page, live_server):
    blob = Blob.objects.create(digest="sha256:" + "c" * 64, size=5)
    console_page.goto(f"{live_server.url}/admin/registry/blob/")
    assert console_page.locator(".object-tools a.addlink").count() == 0
    answer = console_page.goto(f"{live_server.url}/admin/registry/blob/add/")
    assert answer.status == 403
    console_page.goto(f"{live_server.url}/admin/registry/blob/{blob.pk}/change/")
    assert console_page.locator('input[name="_save"]').count() == 0
    assert console_page.locator('input[name="size"]').count() == 0
    assert "sha256:" + "c" * 64 in console_page.inner_text("#content")


@pytest.mark.worker
def test_retrying_a_failed_delivery_delivers_it(
    celery_worker,
    console_page,
    live_server,
    receiver,
):
    webhook = WebhookFactory(installation=InstallationFactory(), url=receiver.url("/hook"))
    delivery = Delivery.objects.create(
        webhook=webhook,
        store_id=webhook.installation.store_id,
        app_id=webhook.installation.app_id,
        event="product/created",
        object_id=42,
        url=webhook.url,
        body='{"store_id": 1, "event": "product/created", "id": 42}',
        status=Delivery.FAILED,
        attempts=4,
        next_attempt_at=timezone.now(),
        finished_at=timezone.now(),
        outcome="gave up after 4 attempts: answered 500",
    )
    message = run_action(console_page, live_server, "storefront/delivery", delivery.pk, "retry_now")
    assert "Queued 1 delivery(ies) again." in message

    def delivered():
        delivery.refresh_from_db()
        return delivery.status == Delivery.DELIVERED

    wait_until(delivered, 30, message="the retried delivery to be delivered")
    [request] = receiver.at("/hook")
    assert request.body == delivery.body.encode()
    console_page.goto(f"{live_server.url}/admin/storefront/delivery/{delivery.pk}/change/")
    assert "answered 200" in console_page.inner_text("#content")


def test_suspending_and_resuming_a_store_turns_the_402_on_and_off(console_page, live_server):
    installation = InstallationFactory()
    token = issue_token(installation)
    store_id = installation.store_id
    headers = {"Authentication": f"bearer {token}", "User-Agent": "Console test (ops@x.example)"}
    url = f"{live_server.url}/v1/{store_id}/products"
    assert requests.get(url, headers=headers).status_code == 200
    message = run_action(console_page, live_server, "storefront/store", store_id, "suspend_stores")
    assert "Suspended 1 store(s)." in message
    assert requests.get(url, headers=headers).status_code == 402
    message = run_action(console_page, live_server, "storefront/store", store_id, "resume_stores")
    assert "Resumed 1 store(s)." in message
    assert requests.get(url, headers=headers).status_code == 200


@pytest.mark.worker
def test_sync_now_brings_a_mirror_up_to_date(
    celery_worker,
    console_page,
    live_server,
    operator,
    local_imports,
    source_repo,
):
    created = basic_client("operator", STAFF_PASSWORD).post(
        "/api/v1/repos/migrate",
        {"clone_addr": str(source_repo.path), "repo_name": "upstream", "mirror": True},
        format="json",
    )
    assert created.status_code == 201, created.content
    mirror = Mirror.objects.get(repo_id=created.json()["id"])
    first = mirror.updated
    head = source_repo.commit("later.txt", "later")

    message = run_action(console_page, live_server, "codehost/mirror", mirror.pk, "sync_now")
    assert "Queued 1 sync(s)." in message

    def synced():
        mirror.refresh_from_db()
        return mirror.updated > first and mirror.sync_state == Mirror.SyncState.IDLE

    wait_until(synced, 30, message="the mirror sync to finish")
    path = settings.CODEHOST_GIT_ROOT / "operator" / "upstream.git"
    assert git("rev-parse", "refs/heads/main", cwd=path) == head


def test_an_account_that_is_not_staff_cannot_reach_the_console(
    page,
    live_server,
    bystander,
):
    sign_in(page, live_server, "bystander")
    assert "/admin/login/" in page.url
    assert "staff account" in page.inner_text("#content")
    for path in ("/admin/", "/admin/storefront/delivery/", "/admin/auth/user/"):
        page.goto(f"{live_server.url}{path}")
        assert "/admin/login/" in page.url
