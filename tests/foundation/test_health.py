import os
import threading
import time
from pathlib import Path

import pytest
import requests
from django.conf import settings

from config import health
from tests.services.servers import free_port
from tests.services.web import gunicorn


@pytest.mark.django_db(transaction=True)
def test_health_reports_every_component_healthy_with_a_real_worker(client, celery_worker):
    response = client.get("/api/v2.0/health")
    assert response.status_code == 200
    body = response.json()
    assert [c["name"] for c in body["components"]] == [
        "core",
        "database",
        "jobservice",
        "portal",
        "redis",
        "registry",
        "registryctl",
    ]
    assert body == {
        "status": "healthy",
        "components": [{"name": c["name"], "status": "healthy"} for c in body["components"]],
    }


@pytest.mark.django_db
def test_health_needs_no_authentication_and_ignores_bad_credentials(client):
    response = client.get("/api/v2.0/health", HTTP_AUTHORIZATION="Basic Ym9ndXM6Ym9ndXM=")
    assert response.status_code == 200
    assert response.json()["status"] in {"healthy", "unhealthy"}


@pytest.mark.django_db
def test_liveness_answers_without_touching_anything(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        live = client.get("/livez")
        pong = client.get("/api/v2.0/ping", HTTP_ACCEPT="text/plain")
    assert (live.status_code, live.content, live["Content-Type"]) == (
        200,
        b"ok\n",
        "text/plain; charset=utf-8",
    )
    assert "no-cache" in live["Cache-Control"]
    # Harbor's ping: "Pong" as text, whatever the components' health.
    assert (pong.status_code, pong.content) == (200, b"Pong")
    assert pong["Content-Type"].startswith("text/plain")
    assert client.post("/livez").status_code == 405


@pytest.mark.django_db
def test_readiness_reports_database_cache_broker_and_storage(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "healthy",
        "components": [
            {"name": name, "status": "healthy"}
            for name in ("database", "cache", "broker", "storage")
        ],
    }
    # A probe leaves no file behind in either storage.
    assert not list((Path(settings.DATA_DIR) / "registry").glob("health/*"))
    assert not list(Path(settings.MEDIA_ROOT).glob("health/*"))


@pytest.mark.django_db
def test_anonymous_probes_write_to_the_storages_at_most_once_per_interval(client, monkeypatch):
    """Each storage check writes (objects in a bucket, on S3); the probes are anonymous, so
    a caller repeating them must not turn into a stream of writes."""
    written = []
    check = health.check_storage
    monkeypatch.setattr(health, "check_storage", lambda: written.append(1) or check())
    monkeypatch.setattr(health, "_last_storage_check", (float("-inf"), None))
    # Harbor's health waits seconds for a worker heartbeat: an interval the loop cannot pass.
    monkeypatch.setattr(health, "STORAGE_CHECK_SECONDS", 3600.0)
    for _ in range(5):
        assert client.get("/readyz").status_code == 200
        assert client.get("/api/v2.0/health").status_code == 200
    assert len(written) == 1
    monkeypatch.setattr(health, "STORAGE_CHECK_SECONDS", 0.0)
    client.get("/readyz")
    assert len(written) == 2


def test_a_web_process_cut_off_from_its_components_is_live_but_not_ready(tmp_path):
    """gunicorn whose database, Redis and storages are all unreachable: /livez and Harbor's
    ping still answer (a load balancer must not restart it), /readyz is 503 naming each
    broken component, and /api/v2.0/health stays 200 with Harbor's "unhealthy"."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    # The storages' directories are files: nothing can be written under them.
    (data_dir / "registry").write_text("")
    (data_dir / "media").write_text("")
    closed = f"127.0.0.1:{free_port()}"
    env = {"DATA_DIR": data_dir}
    redis = bool(os.environ.get("REDIS_URL"))
    if redis:
        env.update(REDIS_URL=f"redis://{closed}/0", CELERY_BROKER_URL=f"redis://{closed}/0")
        database = f"postgres://nobody@{closed}/app"
    else:
        database = f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}"
    with gunicorn(database, tmp_path / "gunicorn.log", workers=1, threads=2, **env) as (base, _):
        live = requests.get(f"{base}/livez", timeout=10)
        assert (live.status_code, live.text) == (200, "ok\n")
        assert requests.get(f"{base}/api/v2.0/ping", timeout=10).text == "Pong"

        ready = requests.get(f"{base}/readyz", timeout=30)
        assert ready.status_code == 503
        states = {c["name"]: c for c in ready.json()["components"]}
        assert ready.json()["status"] == "unhealthy"
        broken = {"database", "storage"} | ({"cache", "broker"} if redis else set())
        assert {name for name, c in states.items() if c["status"] == "unhealthy"} == broken
        assert all(states[name]["error"].startswith("failed to check health") for name in broken)
        assert "registry storage not writable" in states["storage"]["error"]

        harbor = requests.get(f"{base}/api/v2.0/health", timeout=30)
        assert harbor.status_code == 200
        components = {c["name"]: c["status"] for c in harbor.json()["components"]}
        assert harbor.json()["status"] == "unhealthy"
        assert components["database"] == components["registry"] == "unhealthy"
        if redis:
            assert components["redis"] == components["jobservice"] == "unhealthy"


def test_with_the_worker_down_one_thread_waits_for_a_heartbeat_the_others_do_not(
    monkeypatch,
):
    """Harbor's health waits seconds for a worker heartbeat; the endpoint is anonymous, so
    concurrent callers must not each hold a web thread for that long: one checks, the others
    answer from the last verdict, and the new verdict stands for the interval."""
    checking, release = threading.Event(), threading.Event()
    checks = []

    def slow_check():
        checks.append(1)
        checking.set()
        release.wait(10)
        return "failed to check health: no worker heartbeat"

    monkeypatch.setattr(health, "check_worker", slow_check)
    earlier = time.monotonic() - health.WORKER_CHECK_SECONDS - 1
    monkeypatch.setattr(health, "_last_worker_check", (earlier, None))
    verdicts = []
    checker = threading.Thread(target=lambda: verdicts.append(health.check_worker_recently()))
    checker.start()
    assert checking.wait(10)
    others = [health.check_worker_recently() for _ in range(7)]  # while the check waits
    release.set()
    checker.join(10)
    assert others == [None] * 7  # the last verdict, at once
    assert verdicts == ["failed to check health: no worker heartbeat"]
    assert health.check_worker_recently() == verdicts[0]  # the new verdict stands
    assert checks == [1]
