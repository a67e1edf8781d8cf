"""Suspension of a store or of one app in it: events, no other webhooks, commands, admin."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from storefront.models import Delivery, Installation, Store
from storefront.services import events
from tests.conftest import wait_until
from tests.races import Interleaving
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import InstallationFactory, StoreFactory, UserFactory, issue_token
from tests.storefront_webhooks.factories import WebhookFactory

SUSPENSION_EVENTS = ("app/suspended", "app/resumed", "product/updated")


def subscribe_all(installation, receiver, name):
    for event in SUSPENSION_EVENTS:
        WebhookFactory(installation=installation, event=event, url=receiver.url(f"/{name}"))


def events_at(receiver, path):
    return [(body["event"], body["id"]) for body in map(json.loads, bodies(receiver, path))]


def bodies(receiver, path):
    return [item.body for item in receiver.at(path)]


def settled():
    return not Delivery.objects.filter(status=Delivery.PENDING).exists()


def command(name, *args):
    out = []

    class Sink:
        def write(self, text):
            out.append(text)

        def flush(self):
            pass

    call_command(name, *[str(arg) for arg in args], stdout=Sink())
    return json.loads("".join(out))


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_suspended_app_hears_only_its_suspension_and_resumption(celery_worker, receiver):
    paying = InstallationFactory()
    unpaid = InstallationFactory(store=paying.store)
    subscribe_all(paying, receiver, "paying")
    subscribe_all(unpaid, receiver, "unpaid")
    store_id = paying.store_id

    assert command("suspendstore", store_id, "--app", unpaid.app_id) == {
        "store_id": store_id,
        "apps_notified": [unpaid.app_id],
    }
    with transaction.atomic():
        events.emit(store_id, "product/updated", 11)
    wait_until(settled, 20, message="deliveries to settle")
    assert command("resumestore", store_id, "--app", unpaid.app_id)["apps_notified"] == [
        unpaid.app_id
    ]
    # Deliveries run in parallel and carry no order: app/resumed lands before the next event.
    wait_until(settled, 20, message="app/resumed to settle")
    events.emit(store_id, "product/updated", 12)
    wait_until(settled, 20, message="deliveries to settle")

    assert events_at(receiver, "/unpaid") == [
        ("app/suspended", unpaid.app_id),
        ("app/resumed", unpaid.app_id),
        ("product/updated", 12),
    ]
    assert events_at(receiver, "/paying") == [("product/updated", 11), ("product/updated", 12)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_store_suspension_silences_every_app_and_drops_pending_retries(celery_worker, receiver):
    first = InstallationFactory()
    second = InstallationFactory(store=first.store)
    subscribe_all(first, receiver, "first")
    subscribe_all(second, receiver, "second")
    receiver.plan("/first", "hang")  # the first attempt times out; its retry comes later
    events.emit(first.store_id, "product/updated", 21)
    wait_until(lambda: receiver.at("/first"), 20, message="the first attempt")

    changed = command("suspendstore", first.store_id)["apps_notified"]
    assert sorted(changed) == sorted([first.app_id, second.app_id])
    wait_until(settled, 20, message="deliveries to settle")

    retry = Delivery.objects.get(event="product/updated", app=first.app)
    assert retry.status == Delivery.DROPPED
    assert retry.outcome == "not sent: the store is suspended"
    assert events_at(receiver, "/first")[1:] == [("app/suspended", first.app_id)]
    assert ("app/suspended", second.app_id) in events_at(receiver, "/second")


@pytest.mark.django_db
def test_suspending_an_app_of_a_suspended_store_changes_nothing_it_can_see():
    installation = InstallationFactory()
    assert command("suspendstore", installation.store_id)["apps_notified"] == [installation.app_id]
    assert command("suspendstore", installation.store_id)["apps_notified"] == []
    assert (
        command("suspendstore", installation.store_id, "--app", installation.app_id)[
            "apps_notified"
        ]
        == []
    )
    # Still cut off by its own suspension: resuming the store tells it nothing.
    assert command("resumestore", installation.store_id)["apps_notified"] == []
    installation.refresh_from_db()
    assert installation.suspended_at is not None
    assert Store.objects.get(pk=installation.store_id).suspended_at is None


@pytest.mark.django_db
def test_commands_refuse_unknown_stores_and_apps_not_installed():
    installation = InstallationFactory()
    with pytest.raises(CommandError, match="no store 999999"):
        command("suspendstore", 999999)
    with pytest.raises(CommandError, match="not installed"):
        command("resumestore", installation.store_id, "--app", installation.app_id + 1000)


@pytest.mark.django_db
def test_admin_actions_suspend_and_resume(client):
    admin = UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    client.force_login(admin)
    installation = InstallationFactory()
    store = StoreFactory()

    response = client.post(
        "/admin/storefront/store/",
        {"action": "suspend_stores", "_selected_action": [store.pk]},
    )
    assert response.status_code == 302
    store.refresh_from_db()
    assert store.suspended_at is not None

    client.post(
        "/admin/storefront/installation/",
        {"action": "suspend_access", "_selected_action": [installation.pk]},
    )
    assert Installation.objects.get(pk=installation.pk).suspended_at is not None
    client.post(
        "/admin/storefront/installation/",
        {"action": "resume_access", "_selected_action": [installation.pk]},
    )
    assert Installation.objects.get(pk=installation.pk).suspended_at is None
    client.post(
        "/admin/storefront/store/", {"action": "resume_stores", "_selected_action": [store.pk]}
    )
    store.refresh_from_db()
    assert store.suspended_at is None


@pytest.mark.django_db
def test_api_answers_402_while_suspended_and_works_again_once_resumed(client):
    """The state machine through the commands: one app, then the whole store."""
    unpaid = InstallationFactory(scopes="read_products,write_products")
    paying = InstallationFactory(store=unpaid.store, scopes="read_products,write_products")
    store_id = unpaid.store_id
    apis = {
        "unpaid": StoreApi(client, store_id, issue_token(unpaid)),
        "paying": StoreApi(client, store_id, issue_token(paying)),
    }

    def statuses(name):
        api = apis[name]
        return [
            api.get("products").status_code,
            api.head("products").status_code,
            api.post("products", {"name": "Taza"}).status_code,
            api.get("webhooks").status_code,
        ]

    assert statuses("unpaid") == [200, 200, 201, 200]
    command("suspendstore", store_id, "--app", unpaid.app_id)
    assert statuses("unpaid") == [402] * 4
    assert statuses("paying") == [200, 200, 201, 200]
    command("resumestore", store_id, "--app", unpaid.app_id)
    assert statuses("unpaid") == [200, 200, 201, 200]

    command("suspendstore", store_id)
    assert statuses("unpaid") == [402] * 4 and statuses("paying") == [402] * 4
    command("resumestore", store_id)
    assert statuses("unpaid") == [200, 200, 201, 200]
    assert statuses("paying") == [200, 200, 201, 200]


@pytest.mark.django_db(transaction=True)
def test_suspending_a_store_while_an_app_is_uninstalled_is_no_deadlock(monkeypatch):
    """The uninstall held the installation and had written its app/uninstalled delivery;
    the suspension held the store and waited on the installation; the delivery's foreign
    key check on the store at commit waited on the suspension: PostgreSQL failed one of
    them (14 of 25 racing rounds, a 500 in the admin or a command's traceback). The
    suspension's locks now let foreign key checks through (it changes no key)."""
    from storefront.services import installations, suspension

    installation = InstallationFactory()
    WebhookFactory(installation=installation, event="app/uninstalled")
    interleaving = Interleaving()
    monkeypatch.setattr(events, "fan_out", interleaving.after(events.fan_out))
    interleaving.run(
        lambda: installations.uninstall(installation.store_id, installation.app_id),
        lambda: suspension.suspend(installation.store_id, reason="unpaid"),
    )
    assert not Installation.objects.exists()
    assert Store.objects.get(pk=installation.store_id).suspended_at is not None
