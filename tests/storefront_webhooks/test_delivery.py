"""Webhook delivery by the real Celery worker to a real HTTP receiver on loopback.

The worker runs with STOREFRONT_WEBHOOK_RETRY_SCHEDULE=1,1,1 (four attempts, a second
apart) and STOREFRONT_WEBHOOK_TIMEOUT=1 (see tests/conftest.py).
"""

import hashlib
import hmac
import json
import os
import signal

import pytest
from django.db import transaction
from django.utils import timezone

from storefront.models import Delivery, DeliveryAttempt
from storefront.services import events
from storefront.tasks import requeue_lost_deliveries
from tests.conftest import wait_until
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import InstallationFactory, ProductFactory, issue_token
from tests.storefront_webhooks.factories import WebhookFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


@pytest.fixture
def installation():
    return InstallationFactory()


def subscribe(installation, receiver, path, event="product/updated"):
    return WebhookFactory(installation=installation, event=event, url=receiver.url(path))


def finished(delivery_id):
    delivery = Delivery.objects.get(pk=delivery_id)
    return delivery if delivery.status != Delivery.PENDING else None


def test_event_is_posted_once_with_exact_body_and_signature(celery_worker, receiver, installation):
    subscribe(installation, receiver, "/hooks")
    product = ProductFactory(store=installation.store)
    with transaction.atomic():
        events.emit(installation.store_id, "product/updated", product.pk)

    wait_until(lambda: receiver.at("/hooks"), 20, message="the webhook POST")
    (request,) = receiver.at("/hooks")
    assert json.loads(request.body) == {
        "store_id": installation.store_id,
        "event": "product/updated",
        "id": product.pk,
    }
    expected = hmac.new(
        installation.app.client_secret.encode(), request.body, hashlib.sha256
    ).hexdigest()
    assert request.headers["X-Linkedstore-Hmac-Sha256"] == expected
    assert request.headers["Content-Type"] == "application/json"
    delivery = wait_until(lambda: finished(Delivery.objects.get().pk), 10, message="delivered")
    assert delivery.status == Delivery.DELIVERED
    assert list(delivery.attempt_log.values_list("number", "status_code", "error")) == [
        (1, 200, "")
    ]


def test_only_subscribers_of_the_event_in_that_store_are_called(
    celery_worker, receiver, installation
):
    subscribe(installation, receiver, "/updated")
    subscribe(installation, receiver, "/created", event="product/created")
    other_store = InstallationFactory(app=installation.app)
    subscribe(other_store, receiver, "/other-store")
    with transaction.atomic():
        events.emit(installation.store_id, "product/created", 7)

    wait_until(lambda: receiver.at("/created"), 20, message="the product/created POST")
    wait_until(lambda: finished(Delivery.objects.get().pk), 10, message="delivered")
    assert receiver.at("/updated") == [] and receiver.at("/other-store") == []


def test_a_rolled_back_change_announces_nothing(celery_worker, receiver, installation):
    subscribe(installation, receiver, "/hooks")
    with pytest.raises(RuntimeError), transaction.atomic():
        events.emit(installation.store_id, "product/updated", 1)
        raise RuntimeError("the change failed")
    with transaction.atomic():
        events.emit(installation.store_id, "product/updated", 2)

    wait_until(lambda: receiver.at("/hooks"), 20, message="the second event")
    assert Delivery.objects.count() == 1
    assert [json.loads(item.body)["id"] for item in receiver.at("/hooks")] == [2]


def test_retried_after_500s_until_a_2xx(celery_worker, receiver, installation):
    subscribe(installation, receiver, "/flaky")
    receiver.plan("/flaky", 500, 503, 204)
    events.emit(installation.store_id, "product/updated", 3)

    delivery = wait_until(lambda: finished(Delivery.objects.get().pk), 30, message="delivered")
    assert delivery.status == Delivery.DELIVERED
    assert delivery.attempts == 3
    attempts = list(delivery.attempt_log.all())
    assert [item.status_code for item in attempts] == [500, 503, 204]
    assert attempts[0].error == "answered 500"
    arrivals = [item.at for item in receiver.at("/flaky")]
    # The schedule under test waits a second between attempts.
    assert arrivals[1] - arrivals[0] >= 0.9 and arrivals[2] - arrivals[1] >= 0.9
    assert len({item.body for item in receiver.at("/flaky")}) == 1


def test_dropped_after_the_last_attempt_of_the_schedule(celery_worker, receiver, installation):
    subscribe(installation, receiver, "/down")
    receiver.plan("/down", 500, 500, 500, 500, 500)
    events.emit(installation.store_id, "product/updated", 4)

    delivery = wait_until(lambda: finished(Delivery.objects.get().pk), 30, message="given up")
    assert delivery.status == Delivery.FAILED
    assert delivery.attempts == 4
    assert len(receiver.at("/down")) == 4
    assert "gave up after 4 attempts" in delivery.outcome


def test_retried_after_a_timeout(celery_worker, receiver, installation):
    subscribe(installation, receiver, "/slow")
    receiver.plan("/slow", "hang", 200)
    events.emit(installation.store_id, "product/updated", 5)

    delivery = wait_until(lambda: finished(Delivery.objects.get().pk), 30, message="delivered")
    assert delivery.status == Delivery.DELIVERED
    first, second = delivery.attempt_log.all()
    assert first.status_code is None and first.error == "no answer within 1 s"
    assert 900 <= first.duration_ms < 3000
    assert second.status_code == 200


def test_delivered_even_when_the_worker_dies_mid_request(celery_worker, receiver, installation):
    subscribe(installation, receiver, "/kill")
    receiver.plan("/kill", "hang", 200)
    events.emit(installation.store_id, "product/updated", 6)

    wait_until(lambda: receiver.at("/kill"), 20, message="the first POST")
    running = DeliveryAttempt.objects.get(finished_at__isnull=True)
    os.kill(int(running.worker.rsplit(" ", 1)[1]), signal.SIGKILL)

    delivery = wait_until(lambda: finished(Delivery.objects.get().pk), 30, message="redelivery")
    assert delivery.status == Delivery.DELIVERED
    assert len(receiver.at("/kill")) == 2
    lost, done = delivery.attempt_log.all()
    assert lost.error == "no result: the worker stopped during this attempt"
    assert done.status_code == 200
    assert celery_worker.poll() is None, "the worker replaced its dead child"


def test_lost_task_is_queued_again_by_the_sweeper(celery_worker, receiver, installation):
    """A whole worker died holding the message: the periodic task queues it again."""
    webhook = subscribe(installation, receiver, "/lost")
    long_ago = timezone.now() - timezone.timedelta(hours=1)
    lost = Delivery.objects.create(
        webhook=webhook,
        store_id=installation.store_id,
        app_id=installation.app_id,
        event="product/updated",
        object_id=8,
        url=webhook.url,
        body='{"store_id": 1, "event": "product/updated", "id": 8}',
        next_attempt_at=long_ago,
        queued_for=long_ago,
    )
    requeue_lost_deliveries.apply_async(queue="webhooks")

    delivery = wait_until(lambda: finished(lost.pk), 20, message="the sweeper's redelivery")
    assert delivery.status == Delivery.DELIVERED
    assert receiver.at("/lost")[0].body == lost.body.encode()


def test_changes_through_the_api_reach_the_subscribed_app(
    celery_worker, client, receiver, insecure_webhooks
):
    """The whole path: register through /webhooks, change a product through the API."""
    installation = InstallationFactory()
    api = StoreApi(client, installation.store_id, issue_token(installation))
    for event in ("product/created", "product/updated", "product/deleted", "category/created"):
        response = api.post("webhooks", {"url": receiver.url("/api"), "event": event})
        assert response.status_code == 201, response.content

    product_id = api.post("products", {"name": "Taza"}).json()["id"]
    assert api.put(f"products/{product_id}", {"name": "Taza roja"}).status_code == 200
    category_id = api.post("categories", {"name": "Cocina"}).json()["id"]
    assert api.delete(f"products/{product_id}").status_code == 200

    wanted = {
        ("product/created", product_id),
        ("product/updated", product_id),
        ("category/created", category_id),
        ("product/deleted", product_id),
    }

    def seen():
        got = {(json.loads(r.body)["event"], json.loads(r.body)["id"]) for r in receiver.at("/api")}
        return got if wanted <= got else None

    wait_until(seen, 20, message="the four events")
    for request in receiver.at("/api"):
        assert json.loads(request.body)["store_id"] == installation.store_id
