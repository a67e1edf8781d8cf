"""Webhook fan-out and store pages.

1,000 product updates through the API with 5 apps subscribed to product/updated (5,000
deliveries) to a local receiver: deliveries per second, and the delay from the API's
answer (the change has committed by then) to the receiver getting the POST (negative when
the POST lands before the answer reaches the client), and the
worker's CPU time per delivery (what machine load distorts least).
Then the product page of a product with 50 variants.
"""

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

from benchmarks.harness import (
    ROOT,
    backing_services,
    load,
    manage,
    print_table,
    run_django,
    web_server,
)
from tests.storefront_webhooks.receiver import Receiver

UPDATES = 1000
APPS = 5
CLIENT_THREADS = 4

SEED = """
import json, secrets
from django.contrib.auth import get_user_model
from config.auth import hash_token
from storefront.models import (AccessToken, App, Installation, Product, Store, Variant,
    Webhook)

owner = get_user_model().objects.create_user("bench-owner", "o@example.com", "x")
store = Store.objects.create(owner=owner, name={"es": "Bench"}, description={"es": ""},
    languages=["es"], main_language="es")
products = Product.objects.bulk_create([
    Product(store=store, name={"es": f"P {n}"}, handle={"es": f"p-{n}"})
    for n in range(%(updates)d)])
Variant.objects.bulk_create([Variant(product=p, price="10.00") for p in products])
big = Product.objects.create(store=store, name={"es": "Remera"}, handle={"es": "remera"},
    attributes=[{"es": "Talle"}])
Variant.objects.bulk_create([Variant(product=big, price="100.00", stock=5, position=n,
    values=[{"es": f"T{n}"}]) for n in range(50)])
tokens = []
for n in range(%(apps)d):
    app = App.objects.create(name=f"app {n}", client_secret=secrets.token_hex(24),
        redirect_uri="https://app.example.com/cb", scopes="read_products,write_products")
    installation = Installation.objects.create(store=store, app=app, scopes=app.scopes)
    token = secrets.token_hex(20)
    AccessToken.objects.create(installation=installation, token_hash=hash_token(token))
    Webhook.objects.create(installation=installation, event="product/updated",
        url=f"%(receiver)s/app{n}")
    tokens.append(token)
print(json.dumps({"store": store.pk, "products": [p.pk for p in products], "big": big.pk,
    "tokens": tokens}))
"""


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process, its reaped children and its live descendants."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        children = [
            int(child)
            for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()
        ]
    except FileNotFoundError:
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK") + sum(map(tree_cpu_seconds, children))


def start_worker(env: dict) -> subprocess.Popen:
    log = Path(env["DATA_DIR"]) / "worker.log"
    return subprocess.Popen(
        [
            sys.executable,
            *("-m", "celery", "-A", "config", "worker", "-Q", "webhooks"),
            *("--concurrency", "8", "--without-gossip", "--without-mingle"),
            *("--loglevel", "WARNING"),
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def update_products(base: str, seed: dict) -> dict[int, float]:
    """PUT each product once from a few threads; when each answer came back."""
    answered: dict[int, float] = {}
    lock = threading.Lock()
    chunks = [seed["products"][i::CLIENT_THREADS] for i in range(CLIENT_THREADS)]

    def client(ids):
        session = requests.Session()
        headers = {
            "Authentication": f"bearer {seed['tokens'][0]}",
            "User-Agent": "Bench (bench@example.com)",
            "Content-Type": "application/json",
        }
        for product_id in ids:
            url = f"{base}/v1/{seed['store']}/products/{product_id}"
            response = session.put(url, data=json.dumps({"name": "Renamed"}), headers=headers)
            if response.status_code != 200:
                raise RuntimeError(f"{response.status_code}: {response.text[:200]}")
            with lock:
                answered[product_id] = time.time()

    threads = [threading.Thread(target=client, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answered


def run() -> None:
    receiver = Receiver().start()
    try:
        with backing_services() as env:
            env.update(
                {
                    "STOREFRONT_WEBHOOK_ALLOW_INSECURE": "true",
                    "STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS": "true",
                    # The API's leaky bucket is not what this measures.
                    "STOREFRONT_RATE_LIMIT_SIZE": "1000000",
                }
            )
            manage(env, "migrate", "--noinput")
            seed = json.loads(
                run_django(
                    env, SEED % {"updates": UPDATES, "apps": APPS, "receiver": receiver.base_url}
                )
            )
            worker = start_worker(env)
            try:
                with web_server(env) as base:
                    worker_cpu = tree_cpu_seconds(worker.pid)
                    began = time.time()
                    answered = update_products(base, seed)
                    updates_done = time.time()
                    expected = UPDATES * APPS
                    deadline = time.time() + 300
                    while len(receiver.requests) < expected and time.time() < deadline:
                        time.sleep(0.2)
                    arrivals = list(receiver.requests)
                    time.sleep(1)  # the last results are recorded after their POST
                    worker_cpu = tree_cpu_seconds(worker.pid) - worker_cpu
                    delays = sorted(
                        (item.at - answered[json.loads(item.body)["id"]]) * 1000
                        for item in arrivals
                    )
                    last = max(item.at for item in arrivals)
                    print_table(
                        "webhook fan-out (1,000 product updates x 5 apps)",
                        [
                            {
                                "deliveries": len(arrivals),
                                "expected": expected,
                                "updates/s": UPDATES / (updates_done - began),
                                "deliveries/s": len(arrivals) / (last - began),
                                "delay p50 ms": statistics.median(delays),
                                "delay p95 ms": delays[int(len(delays) * 0.95) - 1],
                                "worker CPU ms/delivery": worker_cpu * 1000 / len(arrivals),
                                "load avg 1 min": os.getloadavg()[0],
                            }
                        ],
                    )
                    page = f"{base}/stores/{seed['store']}/products/{seed['big']}/"
                    rows = [
                        {"page": "product, 50 variants", **load(page, 400, concurrency)}
                        for concurrency in (1, 4)
                    ]
                    print_table("store pages (ms)", rows)
            finally:
                worker.terminate()
                worker.wait(timeout=30)
    finally:
        receiver.stop()
