"""Store API: product listing over 10,000 products x 3 variants on PostgreSQL, SQL
queries per page, and what the rate limiter costs per request (Redis, and the embedded
default's files).

The server's bucket is made large (STOREFRONT_RATE_LIMIT_SIZE) so that the load itself
is not refused; the limiter still runs on every request.
"""

import json

from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server

PRODUCTS = 10_000
VARIANTS_PER_PRODUCT = 3

SEED = f"""
import json
from django.contrib.auth import get_user_model
from storefront.services import apps, stores
from storefront.models import Category, Installation, Product, Variant
from config.auth import hash_token
from storefront.models import AccessToken

owner = get_user_model().objects.create_user("merchant", "merchant@example.com", "x")
store = stores.create_store(owner=owner, name="Bench", languages=["es", "pt"],
                            main_language="es", currency="ARS", country="AR")
app = apps.create_app(name="Bench", redirect_uri="https://bench.example/cb",
                      scopes=["read_products", "write_products"])
installation = Installation.objects.create(store=store, app=app, scopes=app.scopes)
AccessToken.objects.create(installation=installation, token_hash=hash_token("bench-token"))
categories = Category.objects.bulk_create(
    [Category(store=store, name={{"es": f"Cat {{i}}", "pt": f"Cat {{i}}"}},
              handle={{"es": f"cat-{{i}}", "pt": f"cat-{{i}}"}}) for i in range(20)])
products = Product.objects.bulk_create(
    [Product(store=store, name={{"es": f"Producto {{i}}", "pt": f"Produto {{i}}"}},
             description={{"es": "<p>Descripción</p>", "pt": "<p>Descrição</p>"}},
             handle={{"es": f"producto-{{i}}", "pt": f"produto-{{i}}"}},
             attributes=[{{"es": "Talle", "pt": "Tamanho"}}], tags="bench, seed")
     for i in range({PRODUCTS})], batch_size=1000)
Variant.objects.bulk_create(
    [Variant(product=product, position=n + 1, price="100.00", stock=10,
             sku=f"B-{{product.pk}}-{{n}}", values=[{{"es": size, "pt": size}}])
     for product in products for n, size in enumerate(["S", "M", "L"][:{VARIANTS_PER_PRODUCT}])],
    batch_size=3000)
Through = Product.categories.through
Through.objects.bulk_create(
    [Through(product_id=product.pk, category_id=categories[product.pk % 20].pk)
     for product in products], batch_size=5000)
# What autovacuum would have done by now on a live database: planner statistics.
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("VACUUM ANALYZE")
print(json.dumps({{"store": store.pk, "app": app.pk}}))
"""

QUERIES = """
import json
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client()
headers = {"Authentication": "bearer bench-token", "User-Agent": "Bench (ops@example.com)"}
counts = {}
for per_page in (30, 200):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"/v1/STORE/products?per_page={per_page}", headers=headers)
    assert response.status_code == 200, response.content[:300]
    counts[per_page] = len(captured)
print(json.dumps(counts))
"""

LIMITER = """
import json, statistics, time
from django.conf import settings
from storefront import ratelimit
results = {}
for backend in ("redis", "file"):
    if backend == "file":
        settings.REDIS_URL = ""
    timings = []
    for n in range(2000):
        began = time.perf_counter()
        ratelimit.take(10**9, n % 50)
        timings.append((time.perf_counter() - began) * 1000)
    timings.sort()
    results[backend] = {"p50": statistics.median(timings), "p95": timings[int(len(timings) * 0.95)]}
print(json.dumps(results))
"""


def run() -> None:
    with backing_services() as env:
        env = {**env, "STOREFRONT_RATE_LIMIT_SIZE": "100000000"}
        manage(env, "migrate", "--noinput")
        ids = json.loads(run_django(env, SEED).strip().splitlines()[-1])
        store = ids["store"]
        queries = json.loads(run_django(env, QUERIES.replace("STORE", str(store))).splitlines()[-1])
        limiter = json.loads(run_django(env, LIMITER).splitlines()[-1])
        headers = {"Authentication": "bearer bench-token", "User-Agent": "Bench (ops@example.com)"}
        rows = []
        with web_server(env) as base:
            for per_page, count in ((30, 200), (200, 100)):
                stats = load(
                    f"{base}/v1/{store}/products?per_page={per_page}&page=7", count, 1, headers
                )
                rows.append(
                    {
                        "endpoint": f"GET /products?per_page={per_page}",
                        **stats,
                        "sql queries": queries[str(per_page)],
                    }
                )
            stats = load(f"{base}/v1/{store}/products?per_page=200", 200, 4, headers)
            rows.append({"endpoint": "GET /products?per_page=200", **stats, "sql queries": ""})
            stats = load(f"{base}/v1/{store}/products?per_page=1", 400, 1, headers, method="HEAD")
            rows.append({"endpoint": "HEAD /products", **stats, "sql queries": ""})
        print_table(f"storefront, {PRODUCTS} products x {VARIANTS_PER_PRODUCT} variants (ms)", rows)
        print_table(
            "rate limiter alone, per call (ms)",
            [{"backend": name, **values} for name, values in limiter.items()],
        )
