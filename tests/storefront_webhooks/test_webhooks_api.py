"""/v1/{store_id}/webhooks: Tiendanube's resource, scoped to the calling app."""

import re

import pytest
from django.test import Client
from django.utils import timezone

from storefront.models import Webhook
from tests.races import Interleaving, run_together
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import InstallationFactory, issue_token
from tests.storefront_webhooks.factories import WebhookFactory

pytestmark = pytest.mark.django_db
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$")


def test_create_returns_the_webhook(api):
    response = api.post(
        "webhooks", {"url": "https://app.example.com/hooks", "event": "product/created"}
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "url", "event", "created_at", "updated_at"}
    assert body["url"] == "https://app.example.com/hooks" and body["event"] == "product/created"
    assert TIME.match(body["created_at"]) and TIME.match(body["updated_at"])
    assert api.get(f"webhooks/{body['id']}").json() == body


@pytest.mark.parametrize(
    "url",
    [
        "http://app.example.com/hooks",
        "https://localhost/hooks",
        "https://api.localhost:8443/x",
        "https://127.0.0.1/hooks",
        "https://[::1]/hooks",
        "https://10.1.2.3/hooks",
        "https://169.254.169.254/latest",
        "https://shop.tiendanube.com/hooks",
        "ftp://app.example.com/hooks",
        "not a url",
        "https://app.example.com:99999/x",
        # Whitespace and control characters: no request can be made to these (they were
        # stored, and every delivery failed for 48 hours).
        "https://app example.com/hooks",
        "https://app.example.com/my hooks",
        "https://app.example.com/hooks\nX-Injected: 1",
        "https://app.example.com/\thooks",
        "https://app.example.com/hooks\x7f",
    ],
)
def test_insecure_or_local_urls_are_422(api, url):
    response = api.post("webhooks", {"url": url, "event": "product/created"})
    assert response.status_code == 422
    assert set(response.json()) == {"url"}
    assert response.json()["url"][0].startswith("invalid url specified")
    assert not Webhook.objects.exists()


def test_allow_insecure_setting_accepts_http_loopback(api, insecure_webhooks):
    response = api.post(
        "webhooks", {"url": "http://127.0.0.1:8080/hooks", "event": "product/created"}
    )
    assert response.status_code == 201


def test_unknown_event_and_missing_fields_are_422(api):
    response = api.post(
        "webhooks", {"url": "https://app.example.com/h", "event": "product/exploded"}
    )
    assert response.status_code == 422
    (message,) = response.json()["event"]
    assert message.startswith("Invalid event specified. Events allowed: app/uninstalled,")
    response = api.post("webhooks", {})
    assert response.status_code == 422
    assert response.json() == {"url": ["can't be blank"], "event": ["can't be blank"]}
    response = api.post("webhooks", {"url": 5, "event": ["product/created"]})
    assert response.status_code == 422 and set(response.json()) == {"url", "event"}


def test_events_need_the_scope_of_their_resource(client):
    installation = InstallationFactory(scopes="write_scripts")
    api = StoreApi(client, installation.store_id, issue_token(installation))
    response = api.post(
        "webhooks", {"url": "https://app.example.com/h", "event": "product/created"}
    )
    assert response.status_code == 403
    assert response.json() == {
        "code": 403,
        "message": "Forbidden",
        "description": "The product/created event needs the read_products scope",
    }
    response = api.post(
        "webhooks", {"url": "https://app.example.com/h", "event": "app/uninstalled"}
    )
    assert response.status_code == 201


def test_the_same_url_and_event_twice_is_409_in_the_envelope(api):
    hook = {"url": "https://app.example.com/h", "event": "product/created"}
    assert api.post("webhooks", hook).status_code == 201
    response = api.post("webhooks", hook)
    assert response.status_code == 409
    assert response.json() == {
        "code": 409,
        "message": "Conflict",
        "description": "A webhook for product/created to this url already exists for the app",
    }


def test_an_app_sees_only_its_own_webhooks(api, installation):
    mine = WebhookFactory(installation=installation)
    neighbour = WebhookFactory(installation=InstallationFactory(store=installation.store))
    assert [item["id"] for item in api.get("webhooks").json()] == [mine.pk]
    for method in ("get", "put", "delete"):
        response = getattr(api, method)(f"webhooks/{neighbour.pk}")
        assert response.status_code == 404
        assert response.json()["description"] == "Webhook with such id does not exist"
    assert Webhook.objects.filter(pk=neighbour.pk).exists()


def test_update_changes_url_and_event(api, installation):
    webhook = WebhookFactory(installation=installation, event="product/created")
    response = api.put(f"webhooks/{webhook.pk}", {"event": "category/deleted"})
    assert response.status_code == 200
    assert response.json()["event"] == "category/deleted"
    response = api.put(f"webhooks/{webhook.pk}", {"url": "https://other.example.com/h"})
    assert response.json()["url"] == "https://other.example.com/h"
    assert response.json()["event"] == "category/deleted"
    response = api.put(f"webhooks/{webhook.pk}", {"url": "http://other.example.com/h"})
    assert response.status_code == 422
    webhook.refresh_from_db()
    assert webhook.url == "https://other.example.com/h"


def test_delete_answers_empty_object(api, installation):
    webhook = WebhookFactory(installation=installation)
    response = api.delete(f"webhooks/{webhook.pk}")
    assert response.status_code == 200 and response.json() == {}
    assert api.get(f"webhooks/{webhook.pk}").status_code == 404


def test_list_filters_and_pages(api, installation):
    first = WebhookFactory(installation=installation, event="product/created")
    second = WebhookFactory(installation=installation, event="product/updated")
    third = WebhookFactory(installation=installation, event="product/updated")
    assert [w["id"] for w in api.get("webhooks?event=product/updated").json()] == [
        second.pk,
        third.pk,
    ]
    assert [w["id"] for w in api.get(f"webhooks?since_id={first.pk}").json()] == [
        second.pk,
        third.pk,
    ]
    assert [w["id"] for w in api.get(f"webhooks?url={third.url}").json()] == [third.pk]
    response = api.get("webhooks?per_page=2&page=2")
    assert [w["id"] for w in response.json()] == [third.pk]
    assert response["X-Total-Count"] == "3"
    assert 'rel="first"' in response["Link"]
    assert api.get("webhooks?since_id=abc").status_code == 422
    later = timezone.now().strftime("%Y-%m-%dT%H:%M:%S%z")
    assert api.get(f"webhooks?created_at_min={later[:-5]}").status_code == 200


@pytest.mark.parametrize("per_page", [5, 50])
def test_list_query_count_is_constant(api, installation, per_page, django_assert_max_num_queries):
    for _ in range(per_page):
        WebhookFactory(installation=installation)
    api.get("webhooks")  # the token lookup is cached after the first call
    with django_assert_max_num_queries(8):
        response = api.get(f"webhooks?per_page={per_page}")
    assert len(response.json()) == per_page


def test_suspended_app_gets_402(api, installation):
    installation.suspended_at = timezone.now()
    installation.save()
    response = api.get("webhooks")
    assert response.status_code == 402
    assert response.json()["code"] == 402


@pytest.mark.django_db(transaction=True)
def test_two_identical_creates_give_one_201_and_one_409(installation):
    token = issue_token(installation)
    body = {"url": "https://app.example.com/h", "event": "product/created"}
    apis = [StoreApi(Client(), installation.store_id, token) for _ in range(2)]
    statuses = run_together(
        [lambda api=api: api.post("webhooks", body).status_code for api in apis]
    )
    assert sorted(statuses) == [201, 409]
    assert Webhook.objects.count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "method, moment",
    [
        ("GET", "after the token check"),
        ("PUT", "after the token check"),
        ("DELETE", "after the token check"),
        # (A GET that found the webhook has read all it answers.)
        ("PUT", "after the webhook was read"),
        ("DELETE", "after the webhook was read"),
    ],
)
def test_an_uninstall_racing_a_webhook_call_is_401_not_404(
    monkeypatch, installation, method, moment
):
    """The token dies with the installation: a call whose token was checked just before an
    uninstall committed answers what the next call would, 401 "Invalid access token", not
    404 for a webhook that went with the installation."""
    from storefront.api.webhook_views import WebhookView
    from storefront.services import installations

    webhook = WebhookFactory(installation=installation)
    api = StoreApi(Client(), installation.store_id, issue_token(installation))
    # The request pauses at `moment` while the uninstall runs and commits.
    interleaving = Interleaving()
    module, name = (
        (installations, "installation_for_token")
        if moment == "after the token check"
        else (WebhookView, "webhook")
    )
    monkeypatch.setattr(module, name, interleaving.after(getattr(module, name)))
    body = {"event": "product/updated"} if method == "PUT" else None
    response, _ = interleaving.run(
        lambda: api.request(method, f"webhooks/{webhook.pk}", body),
        lambda: installations.uninstall(installation.store_id, installation.app_id),
    )
    assert response.status_code == 401, response.content
    assert response.json() == {
        "code": 401, "message": "Unauthorized", "description": "Invalid access token",
    }  # fmt: skip
    assert not Webhook.objects.exists()
