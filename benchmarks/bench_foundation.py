"""Plumbing every request pays for: middleware, routing, error rendering."""

from benchmarks.harness import backing_services, load, manage, print_table, web_server


def run() -> None:
    with backing_services() as env:
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        rows = []
        with web_server(env) as base:
            for concurrency in (1, 8):
                stats = load(f"{base}/api/v2.0/nope", 400, concurrency, expect=404)
                rows.append({"endpoint": "unknown path, Harbor 404", **stats})
        print_table("foundation (ms)", rows)
