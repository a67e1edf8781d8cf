"""Deliveries go out in batches: one task claims an event's deliveries together, POSTs
them in parallel and records each result on its own delivery."""

import json
import socket
import threading

import pytest
from celery.signals import before_task_publish
from django.db import transaction
from django.utils import timezone

from storefront import webhook_posts
from storefront.models import Delivery, DeliveryAttempt
from storefront.services import events, webhook_delivery
from tests.conftest import wait_until
from tests.storefront.factories import InstallationFactory
from tests.storefront_webhooks.factories import WebhookFactory


def pending(webhook, **fields):
    now = timezone.now()
    values = {
        "webhook": webhook,
        "store_id": webhook.installation.store_id,
        "app_id": webhook.installation.app_id,
        "event": webhook.event,
        "object_id": 1,
        "url": webhook.url,
        "body": "{}",
        "next_attempt_at": now,
        "queued_for": now,
        **fields,
    }
    return Delivery.objects.create(**values)


@pytest.mark.django_db
def test_a_batch_starts_only_the_due_and_free_deliveries(django_capture_on_commit_callbacks):
    webhook = WebhookFactory(installation=InstallationFactory())
    later = timezone.now() + timezone.timedelta(hours=1)
    lease_end = timezone.now() + timezone.timedelta(seconds=30)
    done = pending(webhook, status=Delivery.DELIVERED)
    not_due = pending(webhook, next_attempt_at=later)
    leased = pending(webhook, attempts=1, lease_until=lease_end)
    due = pending(webhook)
    retried = pending(webhook, attempts=1)
    DeliveryAttempt.objects.create(delivery=retried, number=1, started_at=timezone.now())

    with django_capture_on_commit_callbacks() as queued:
        claims = webhook_delivery.claim(
            [done.pk, not_due.pk, leased.pk, due.pk, retried.pk], "test"
        )

    assert [item.delivery.pk for item in claims] == [due.pk, retried.pk]
    assert [item.delivery.attempts for item in claims] == [1, 2]
    assert Delivery.objects.get(pk=due.pk).attempts == 1
    assert Delivery.objects.get(pk=due.pk).lease_until is not None
    # The earlier attempt of `retried` never reported back: it is closed as lost.
    assert retried.attempt_log.get(number=1).error == webhook_delivery.STALE_ATTEMPT
    # The leased one is looked at again when its lease ends.
    assert len(queued) == 1
    assert Delivery.objects.get(pk=leased.pk).queued_for > lease_end
    assert Delivery.objects.get(pk=not_due.pk).attempts == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_an_events_deliveries_go_out_together_and_settle_apart(celery_worker, receiver):
    """Three apps hear of one change at once; the slow one alone is retried."""
    store = InstallationFactory().store
    paths = ("/fast-a", "/slow", "/fast-b")
    for path in paths:
        installation = InstallationFactory(store=store)
        WebhookFactory(installation=installation, url=receiver.url(path))
    receiver.plan("/slow", "hang", 200)
    with transaction.atomic():
        events.emit(store.pk, "product/updated", 11)

    def all_delivered():
        rows = Delivery.objects.order_by("id")
        return rows if all(row.status == Delivery.DELIVERED for row in rows) else None

    fast_a, slow, fast_b = wait_until(all_delivered, 30, message="three deliveries")
    first_attempts = DeliveryAttempt.objects.filter(number=1).order_by("delivery_id")
    assert len({(item.worker, item.started_at) for item in first_attempts}) == 1
    arrivals = [receiver.at(path)[0].at for path in paths]
    assert max(arrivals) - min(arrivals) < 0.9, "posted in parallel, not one after another"
    assert (fast_a.attempts, slow.attempts, fast_b.attempts) == (1, 2, 1)
    assert slow.attempt_log.get(number=1).error == "no answer within 1 s"
    assert {json.loads(receiver.at(path)[-1].body)["id"] for path in paths} == {11}


def test_delivery_tasks_go_to_the_webhooks_queue_ten_deliveries_each():
    sent = []

    def published(sender=None, body=None, routing_key=None, **kwargs):
        if sender == "storefront.deliver_webhooks":
            sent.append((routing_key, body[0][0]))

    before_task_publish.connect(published)
    try:
        # As the services announce due deliveries (after commit); storefront.tasks, loaded
        # with the app, queues them. Ids of no delivery: a worker taking these does nothing.
        webhook_delivery.deliveries_due.send(sender=None, ids=list(range(-23, 0)), when=None)
    finally:
        before_task_publish.disconnect(published)
    assert [(queue, len(ids)) for queue, ids in sent] == [
        ("webhooks", 10),
        ("webhooks", 10),
        ("webhooks", 3),
    ]


def test_posts_reuse_a_keep_alive_connection(receiver, insecure_webhooks):
    due = webhook_delivery.Due(
        *(1, Delivery.PENDING, 1, timezone.now(), None, "product/updated"),
        *(receiver.url("/kept"), '{"id": 1}', "secret", False, True, False),
    )
    session = webhook_posts._current_sender().session
    for _ in range(3):
        claim = webhook_delivery.Claim(delivery=due, attempt_id=0)
        assert webhook_posts._post(session, claim)[:2] == (200, "")
    assert len({item.client_port for item in receiver.at("/kept")}) == 1


def trickler(head: bytes):
    """A loopback endpoint that sends `head` at once, then one byte every 50 ms for as
    long as the client listens: each read gets a byte well within its read timeout."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def answer():
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            try:
                connection.sendall(head)
                while not done.wait(0.05):
                    connection.sendall(b"x")
            except OSError:
                pass  # the client cut the connection

    threading.Thread(target=answer, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/hook", done, listener


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n",  # the body, 1 MB
        b"HTTP/1.1 200 OK\r\nX-Slow: ",  # a header that never ends
    ],
    ids=["body", "headers"],
)
def test_a_trickling_answer_is_cut_at_the_attempt_limit(insecure_webhooks, settings, head):
    """A receiver answering one byte per read timeout held its POST's thread for hours
    (64 kB of body, or 100 headers of 64 kB, at 3 s a byte): each late batch left up to
    10 threads and sockets behind in the worker, one more set per retry. The whole POST,
    answer included, now ends at the attempt limit."""
    settings.STOREFRONT_WEBHOOK_TIMEOUT = 0.2
    url, done, listener = trickler(head)
    due = webhook_delivery.Due(
        *(1, Delivery.PENDING, 1, timezone.now(), None, "product/updated"),
        *(url, '{"id": 1}', "secret", False, True, False),
    )
    claim = webhook_delivery.Claim(delivery=due, attempt_id=0)
    session = webhook_posts._Sender().session
    result = []
    post = threading.Thread(target=lambda: result.append(webhook_posts._post(session, claim)))
    try:
        post.start()
        post.join(webhook_posts.attempt_limit() + 0.5)
        assert not post.is_alive(), "the POST still reads the trickle"
    finally:
        done.set()
        listener.close()
        post.join()
    ((status, _, duration_ms),) = result
    assert status in (200, None)
    assert duration_ms < webhook_posts.attempt_limit() * 1000 + 500
