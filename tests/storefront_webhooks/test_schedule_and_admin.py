"""The retry schedule, and the record of deliveries and attempts in the Django admin."""

import itertools

import pytest
from django.utils import timezone

from storefront import webhook_posts
from storefront.models import Delivery, DeliveryAttempt
from storefront.services import webhook_delivery
from tests.storefront.factories import InstallationFactory, UserFactory
from tests.storefront_webhooks.factories import WebhookFactory


def test_tiendanube_schedule_is_18_attempts_within_48_hours(settings):
    settings.STOREFRONT_WEBHOOK_RETRY_SCHEDULE = []
    waits = webhook_delivery.retry_waits()
    assert len(waits) == 17  # 18 attempts
    assert waits[:5] == [0, 300, 600, 900, 1260]
    assert waits[5] == pytest.approx(1260 * 1.4)
    assert sum(waits) == pytest.approx(48 * 3600)
    assert all(later >= earlier for earlier, later in itertools.pairwise(waits[:15]))


def test_schedule_from_settings_replaces_it(settings):
    settings.STOREFRONT_WEBHOOK_RETRY_SCHEDULE = [1.0, 2.0, 3.0]
    assert webhook_delivery.retry_waits() == [1.0, 2.0, 3.0]


def test_signature_is_lowercase_hex_hmac_sha256():
    # RFC 4231 test case 2.
    assert webhook_posts.sign(b"what do ya want for nothing?", "Jefe") == (
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


@pytest.mark.django_db
def test_admin_lists_deliveries_and_shows_each_attempt(client):
    client.force_login(UserFactory(username="ops", is_staff=True, is_superuser=True))
    webhook = WebhookFactory(installation=InstallationFactory())
    delivery = Delivery.objects.create(
        webhook=webhook,
        store_id=webhook.installation.store_id,
        app_id=webhook.installation.app_id,
        event="product/updated",
        object_id=5,
        url=webhook.url,
        body='{"store_id": 1, "event": "product/updated", "id": 5}',
        next_attempt_at=timezone.now(),
        attempts=2,
    )
    now = timezone.now()
    DeliveryAttempt.objects.create(
        delivery=delivery, number=1, started_at=now, status_code=500, error="answered 500"
    )
    DeliveryAttempt.objects.create(
        delivery=delivery, number=2, started_at=now, error="no answer within 3 s"
    )

    listing = client.get("/admin/storefront/delivery/?status=pending")
    assert listing.status_code == 200
    assert webhook.url in listing.content.decode()
    page = client.get(f"/admin/storefront/delivery/{delivery.pk}/change/").content.decode()
    assert "answered 500" in page and "no answer within 3 s" in page
    attempts = client.get("/admin/storefront/deliveryattempt/?status_code=500")
    assert attempts.status_code == 200 and "answered 500" in attempts.content.decode()
    assert client.get("/admin/storefront/webhook/").status_code == 200


def test_beat_queues_lost_deliveries_again_every_minute():
    from config.celery import app

    entry = app.conf.beat_schedule["storefront-requeue-lost-deliveries"]
    assert entry["task"] == "storefront.requeue_lost_deliveries"
    assert entry["schedule"] == 60.0 and entry["options"] == {"queue": "webhooks"}
