"""`make run` with no settings as a newcomer starts it (SQLite, the file cache, the
filesystem broker, gunicorn, a worker and beat), an app registering a webhook to a
receiver on this machine: a product change reaches it signed within a second, and a 5xx
is retried (Tiendanube's first retry comes right after the failure)."""

import hashlib
import hmac
import json
import os
import subprocess
import sys
import time

import pytest
import requests

from tests.conftest import ROOT, wait_until
from tests.services.servers import free_port
from tests.services.web import serve
from tests.storefront_webhooks.receiver import Receiver

SEED = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from tests.storefront.factories import InstallationFactory, issue_token
installation = InstallationFactory()
print(json.dumps({"store": installation.store_id, "token": issue_token(installation),
                  "secret": installation.app.client_secret}))
"""


@pytest.fixture
def embedded_default(tmp_path):
    """`manage.py serve` (what `make run` runs) on an empty DATA_DIR; yields (URL, env)."""
    port = free_port()
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")
        and not name.startswith(("STOREFRONT_", "DJANGO_"))
    }
    env.update(DATA_DIR=str(tmp_path / "data"), PORT=str(port))
    # The two settings a receiver on this machine needs (webhook URLs are https and public).
    env["STOREFRONT_WEBHOOK_ALLOW_INSECURE"] = "true"
    env["STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS"] = "true"
    log = tmp_path / "serve.log"
    with serve(env, log):
        yield f"http://127.0.0.1:{port}", env, log


@pytest.mark.sqlite_only(reason="starts its own embedded default; once per `make test`")
def test_a_product_change_reaches_the_receiver_signed_within_a_second_and_5xx_is_retried(
    embedded_default,
):
    base, env, log = embedded_default
    seeded = subprocess.run(
        [sys.executable, "-c", SEED], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert seeded.returncode == 0, seeded.stderr[-3000:]
    app = json.loads(seeded.stdout.strip().splitlines()[-1])
    api = requests.Session()
    api.headers["Authentication"] = f"bearer {app['token']}"
    store = f"{base}/v1/{app['store']}"
    receiver = Receiver().start()
    try:
        for event in ("product/created", "product/updated"):
            answer = api.post(f"{store}/webhooks", json={"url": receiver.url("/h"), "event": event})
            assert answer.status_code == 201, answer.text
        # The worker is up once it has answered; the first delivery then shows the latency.
        wait_until(lambda: b"ready." in log.read_bytes(), 120, message="the worker")

        began = time.time()
        product = api.post(f"{store}/products", json={"name": "Remera"}).json()
        wait_until(lambda: receiver.at("/h"), 10, interval=0.01, message="the delivery")
        first = receiver.at("/h")[0]
        assert first.at - began < 1.0
        assert json.loads(first.body) == {
            "store_id": app["store"],
            "event": "product/created",
            "id": product["id"],
        }
        expected = hmac.new(app["secret"].encode(), first.body, hashlib.sha256).hexdigest()
        assert first.headers["X-Linkedstore-Hmac-Sha256"] == expected

        receiver.plan("/h", 503)
        changed = api.put(f"{store}/products/{product['id']}", json={"name": "Remera azul"})
        assert changed.status_code == 200, changed.text
        wait_until(lambda: len(receiver.at("/h")) >= 3, 20, message="the retry")
        failed, retried = receiver.at("/h")[1:3]
        assert failed.body == retried.body
        assert json.loads(retried.body)["event"] == "product/updated"
    finally:
        receiver.stop()
    assert b"Traceback" not in log.read_bytes(), log.read_text()[-3000:]
