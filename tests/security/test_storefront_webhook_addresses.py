"""Webhooks reach only public addresses: every spelling of loopback and names resolving to
private addresses are refused (422) at registration; at delivery the address is checked
again as resolved then, the connection goes to that very address (no DNS rebinding) and
redirects are not followed. STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS (on for the tests'
loopback receivers, as in the worker's environment) is off by default, and refused then.

Names under `.example.test` are answered by a stand-in DNS (a remote host's resolver)."""

import ipaddress
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import transaction

from config import outbound
from storefront.models import Delivery, DeliveryAttempt, Webhook
from storefront.services import events, webhook_delivery
from tests.security.storefront_support import tenant
from tests.storefront.factories import ProductFactory
from tests.storefront_webhooks.factories import WebhookFactory
from tests.storefront_webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db
PUBLIC = "93.184.215.14"


@pytest.fixture
def strict(settings):
    """The production defaults: https only, no local networks."""
    settings.STOREFRONT_WEBHOOK_ALLOW_INSECURE = False
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = False
    return settings


@pytest.fixture
def dns(monkeypatch):
    """Answers for names under .example.test: each name's list of answers, one per lookup
    (the last repeats), an answer being a comma list of addresses; every lookup is
    recorded. Other names go to the real resolver."""
    answers: dict[str, list[str]] = {}
    lookups: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if isinstance(host, str) and host.endswith(".example.test"):
            lookups.append(host)
            queue = answers[host]
            answer = queue.pop(0) if len(queue) > 1 else queue[0]
            return [
                info
                for address in answer.split(",")
                for info in real(address, port, *args, **kwargs)
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers, lookups


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    "host",
    [
        "2130706433",
        "127.1",
        "0x7f000001",
        "0177.0.0.1",
        "127.0.0.2",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[2002:7f00:1::]",
        "[64:ff9b::7f00:1]",
        # IPv4-compatible (deprecated, reserved ::/96): Python calls it global.
        "[::127.0.0.1]",
        "[::a00:1]",
        "0.0.0.0",
        "0",
        "[::]",
        "10.0.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "intranet.example.test",
        "mixed.example.test",
    ],
)
def test_local_addresses_in_every_spelling_are_refused_at_registration(client, strict, dns, host):
    answers, _ = dns
    answers["intranet.example.test"] = ["10.1.2.3"]
    # One lookup answering a public and a private address: both are checked.
    answers["mixed.example.test"] = [f"{PUBLIC},192.168.0.1"]
    api = tenant().api(client)
    response = api.post("webhooks", {"url": f"https://{host}/hooks", "event": "product/created"})
    assert response.status_code == 422, response.content
    assert response.json() == {
        "url": ["invalid url specified: localhost and private addresses are not accepted"]
    }
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    ("spelling", "judged_as"),
    [("::127.0.0.1", "127.0.0.1"), ("::a00:1", "10.0.0.1"), ("::1", "::1"), ("::", "::")],
)
def test_ipv4_compatible_addresses_are_judged_by_their_ipv4(spelling, judged_as):
    """::a.b.c.d carries an IPv4 address; ::1 and :: are IPv6's own loopback and
    unspecified address (the code host's allow list tells loopback from private by it)."""
    judged = outbound.embedded_ipv4(ipaddress.ip_address(spelling))
    assert judged == ipaddress.ip_address(judged_as)
    assert not outbound.is_public(ipaddress.ip_address(spelling))


def test_a_name_resolving_to_a_public_address_is_accepted(client, strict, dns):
    dns[0]["hooks.example.test"] = [PUBLIC]
    api = tenant().api(client)
    response = api.post(
        "webhooks", {"url": "https://hooks.example.test/x", "event": "product/created"}
    )
    assert response.status_code == 201, response.content


def test_local_networks_setting_opens_loopback_only_when_on(client, settings):
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True
    api = tenant().api(client)
    body = {"url": "https://127.1/hooks", "event": "product/created"}
    assert api.post("webhooks", body).status_code == 201
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = False
    assert api.post("webhooks", {**body, "url": "https://127.0.0.1/x"}).status_code == 422


def deliver_one(installation, url) -> Delivery:
    """Register `url` (bypassing registration checks, as an old row would), emit an event
    and run one delivery attempt in this process."""
    WebhookFactory(installation=installation, url=url)
    product = ProductFactory(store=installation.store)
    with transaction.atomic():
        events.emit(installation.store_id, "product/updated", product.pk)
    delivery = Delivery.objects.get()
    webhook_delivery.deliver([delivery.pk], "test")
    return Delivery.objects.get(pk=delivery.pk)


def last_error(delivery: Delivery) -> str:
    return DeliveryAttempt.objects.filter(delivery=delivery).latest("id").error


def test_delivery_refuses_loopback_when_local_networks_are_off(settings, receiver):
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = False
    delivery = deliver_one(tenant().installation, receiver.url("/hooks"))
    assert receiver.at("/hooks") == []
    assert "refused address" in last_error(delivery)


def test_delivery_reaches_loopback_when_local_networks_are_on(settings, receiver):
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True
    delivery = deliver_one(tenant().installation, receiver.url("/hooks"))
    assert len(receiver.at("/hooks")) == 1
    assert delivery.status == Delivery.DELIVERED


def test_a_name_rebound_to_a_private_address_after_registration_is_refused(
    client, settings, strict, dns, receiver
):
    answers, _ = dns
    answers["rebind.example.test"] = [PUBLIC]
    settings.STOREFRONT_WEBHOOK_ALLOW_INSECURE = True  # the stand-in receiver speaks http
    port = receiver.server.server_address[1]
    url = f"http://rebind.example.test:{port}/hooks"
    one = tenant()
    assert (
        one.api(client).post("webhooks", {"url": url, "event": "product/created"}).status_code
        == 201
    )
    answers["rebind.example.test"] = ["127.0.0.1"]
    Webhook.objects.all().delete()
    delivery = deliver_one(one.installation, url)
    assert receiver.at("/hooks") == []
    assert "refused address" in last_error(delivery)


def test_the_connection_goes_to_the_address_checked(settings, dns, receiver):
    """The name is looked up once per connection: the check's answer (loopback, allowed
    here) is the address connected to, whatever a second lookup would say."""
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True
    answers, lookups = dns
    answers["pinned.example.test"] = ["127.0.0.1", "10.255.255.1"]
    port = receiver.server.server_address[1]
    delivery = deliver_one(tenant().installation, f"http://pinned.example.test:{port}/hooks")
    assert delivery.status == Delivery.DELIVERED, last_error(delivery)
    assert len(receiver.at("/hooks")) == 1
    assert lookups == ["pinned.example.test"]


class Redirector:
    """Answers every POST with a redirect to `location`."""

    def __init__(self, location: str):
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.send_response(307)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_redirects_are_not_followed(settings, receiver):
    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True
    redirector = Redirector(receiver.url("/internal"))
    try:
        delivery = deliver_one(tenant().installation, redirector.url)
    finally:
        redirector.close()
    assert receiver.at("/internal") == []
    assert DeliveryAttempt.objects.get(delivery=delivery).status_code == 307
