"""`python -m benchmarks footprint`: `make run`'s footprint under list load in minutes.

`lists` measures the footprint on its full data set in ~14 minutes. This serves with
`manage.py serve` as `make run` does, seeds a small set through the APIs (6 projects x 20
repositories x 5 artifacts, 200 code repositories, 300 products), and drives five lists
(8 clients, FOOTPRINT_REQUESTS each, over two minutes by default, so that beat's
once-a-minute tasks run during the load) while the group's PSS is sampled every half
second: idle, peak, and how many samples saw how many processes. FOOTPRINT_BACKENDS
chooses the backends (default `sqlite,postgres`). Compare two trees side by side on the
same machine rather than with figures from another day: the machine's load moves them.
"""

import json
import os
import time

from benchmarks import bench_lists as lists
from benchmarks.harness import backing_services, manage, print_table, run_django

REQUESTS = int(os.environ.get("FOOTPRINT_REQUESTS", "100"))
LISTS = (
    "/api/v2.0/projects?page_size=100",
    "/api/v2.0/repositories?page_size=100",
    "/api/v1/repos/search?limit=50",
    "products?per_page=200",
    "products?per_page=30",
)


class Samples(lists.PeakPss):
    """The peak, and how many samples counted how many processes."""

    def __init__(self, group: int):
        super().__init__(group)
        self.processes: dict[int, int] = {}

    def _sample(self):
        while not self._stop.wait(0.5):
            pss, count = lists.group_pss_mib(self.group)
            self.peak = max(self.peak, pss)
            self.processes[count] = self.processes.get(count, 0) + 1


def measure(backend: str, env: dict) -> dict:
    lists.PROJECTS, lists.CODE_REPOS, lists.PRODUCTS = 6, 200, 300
    env = {
        **env,
        "ADMIN_PASSWORD": lists.ADMIN_PASSWORD,
        "STOREFRONT_RATE_LIMIT_SIZE": "100000000",
        "STOREFRONT_WEBHOOK_ALLOW_INSECURE": "true",
    }
    manage(env, "migrate", "--noinput")
    manage(env, "ensureadmin")
    accounts = json.loads(run_django(env, lists.ACCOUNTS).strip().splitlines()[-1])
    store, tokens = accounts["store"], accounts["tokens"]
    with lists.serve(env) as (base, group):
        time.sleep(5)
        fresh, _ = lists.group_pss_mib(group)
        seeded = lists.seed(base, store, tokens)
        lists.settle(group)
        idle, processes = lists.group_pss_mib(group)
        chosen = [
            (path, kind)
            for _, path, kind in lists.endpoints(store, seeded["product"])
            if path.endswith(LISTS)
        ]
        began = time.monotonic()
        with Samples(group) as samples:
            for path, kind in chosen:
                lists.drive(
                    base + path, lambda n, k=kind: lists.credentials(k, n, tokens), REQUESTS
                )
        after, _ = lists.group_pss_mib(group)
    return {
        "backend": backend,
        "processes idle": processes,
        "PSS fresh MiB": fresh,
        "PSS idle MiB": idle,
        "PSS peak MiB": samples.peak,
        "PSS after MiB": after,
        "samples by processes": " ".join(f"{n}:{c}" for n, c in sorted(samples.processes.items())),
        "load s": time.monotonic() - began,
    }


def run() -> None:
    rows = []
    for backend in os.environ.get("FOOTPRINT_BACKENDS", "sqlite,postgres").split(","):
        context = lists.embedded_default() if backend == "sqlite" else backing_services()
        with context as env:
            rows.append(measure(backend, env))
    print_table(
        f"footprint of `make run`'s process group under list load, 8 clients x "
        f"{REQUESTS} requests per list (PSS; machine load {os.getloadavg()[0]:.1f})",
        rows,
    )
