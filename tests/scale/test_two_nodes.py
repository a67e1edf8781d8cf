"""Two nodes of one deployment (tests/scale/cluster.py): whatever a client starts on one
node, the other continues; what is shared (rate limits, webhook deliveries, beat) is
done once for the deployment, not once per node."""

import contextlib
import hashlib
import json
import os
import re
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import oras.client
import pytest
import redis
import requests

from config.beat import LEASE_KEY
from storefront.models import Delivery, DeliveryAttempt
from tests.codehost_migrations.conftest import GIT_ENV
from tests.conftest import wait_until
from tests.scale.cluster import ADMIN
from tests.services.s3 import s3_client
from tests.storefront.conftest import USER_AGENT
from tests.storefront.factories import InstallationFactory, issue_token

pytestmark = pytest.mark.postgres_only(
    reason="several nodes share PostgreSQL and Redis; the embedded default (SQLite, file "
    "cache, filesystem broker under one DATA_DIR) is one machine by design"
)


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def admin_session() -> requests.Session:
    session = requests.Session()
    session.auth = ADMIN
    return session


def git(*args, cwd=None) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def authed(url: str) -> str:
    return url.replace("http://", f"http://{ADMIN[0]}:{ADMIN[1]}@")


def test_one_beat_sends_for_the_whole_deployment(nodes):
    """Both nodes' workers run beat: one holds the lease and sends, the other stands by."""

    def settled():
        holding = [n for n in nodes if "beat holds the lease" in n.log("worker")]
        waiting = [n for n in nodes if "beat standing by" in n.log("worker")]
        return len(holding) == 1 and len(waiting) >= 1 and (holding, waiting)

    (active,), _ = wait_until(settled, 90, message="one beat holding, one standing by")
    holder = redis.Redis.from_url(active.env["REDIS_URL"]).get(LEASE_KEY).decode()
    # Beat runs in a child of the worker's main process.
    assert int(holder.split(":")[1]) in active.worker_pids()
    standby = next(n for n in nodes if n is not active)
    assert "Sending due task" not in standby.log("worker")


def test_an_image_pushed_through_one_node_pulls_from_the_other(nodes, tmp_path, monkeypatch):
    a, b = nodes
    created = admin_session().post(f"{a.url}/api/v2.0/projects", json={"project_name": "team"})
    assert created.status_code == 201, created.text
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "artifact.txt").write_bytes(b"pushed through node A\n" * 5000)

    def client(node):
        oras_client = oras.client.OrasClient(hostname=node.host, insecure=True)
        oras_client.auth.set_basic_auth(*ADMIN)
        return oras_client

    pushed = client(a).push(
        target=f"{a.host}/team/files:v1", files=["artifact.txt"], do_chunked=True, chunk_size=20_000
    )
    assert pushed.status_code == 201
    files = client(b).pull(target=f"{b.host}/team/files:v1", outdir=str(tmp_path / "out"))
    assert [f.rsplit("/", 1)[1] for f in files] == ["artifact.txt"]
    assert (tmp_path / "out" / "artifact.txt").read_bytes() == (
        tmp_path / "artifact.txt"
    ).read_bytes()
    listed = admin_session().get(f"{b.url}/api/v2.0/projects/team/repositories/files/artifacts")
    assert [x["digest"] for x in listed.json()] == [pushed.headers["Docker-Content-Digest"]]
    # The bytes are in the bucket, on neither node's disk.
    stored = s3_client().list_objects_v2(Bucket=a.env["S3_BUCKET"], Prefix="registry/blobs/")
    assert stored["KeyCount"] >= 3  # the file, the config, the manifest
    assert not [path for node in nodes for path in node.data_dir.glob("registry*")]


def test_a_repository_created_or_migrated_on_one_node_clones_from_the_other(nodes, tmp_path):
    a, b = nodes
    created = admin_session().post(
        f"{a.url}/api/v1/user/repos", json={"name": "shared", "auto_init": True}
    )
    assert created.status_code == 201, created.text
    clone = tmp_path / "clone"
    git("clone", "--quiet", authed(f"{b.url}/admin/shared.git"), str(clone))
    assert (clone / "README.md").exists()
    # A commit pushed through B is what A serves.
    (clone / "notes.txt").write_text("pushed through B")
    git("add", "notes.txt", cwd=clone)
    git("commit", "--quiet", "-m", "through B", cwd=clone)
    git("push", "--quiet", "origin", "HEAD:main", cwd=clone)
    head = git("rev-parse", "HEAD", cwd=clone)
    assert git("ls-remote", authed(f"{a.url}/admin/shared.git"), "main").split()[0] == head

    # Migrated on A: the clone runs on whichever node's worker takes the task.
    migrated = admin_session().post(
        f"{a.url}/api/v1/repos/migrate",
        json={
            "clone_addr": f"{b.url}/admin/shared.git",
            "repo_name": "copy",
            "auth_username": ADMIN[0],
            "auth_password": ADMIN[1],
        },
        timeout=90,
    )
    assert migrated.status_code == 201, migrated.text
    copy = tmp_path / "copy"
    git("clone", "--quiet", authed(f"{b.url}/admin/copy.git"), str(copy))
    assert git("rev-parse", "HEAD", cwd=copy) == head
    assert (copy / "notes.txt").read_text() == "pushed through B"


def test_a_store_apps_rate_limit_is_one_bucket_across_the_nodes(nodes):
    """Tiendanube's leaky bucket (40, leaking 2 a second) per store and app: 80 calls
    spread over two nodes fill one bucket of 40, not two."""
    installation = InstallationFactory()
    token = issue_token(installation)
    headers = {"Authentication": f"bearer {token}", "User-Agent": USER_AGENT}

    def call(index):
        node = nodes[index % 2]
        response = requests.get(
            f"{node.url}/v1/{installation.store_id}/products", headers=headers, timeout=30
        )
        return node.name, response.status_code

    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(call, range(80)))
    elapsed = time.monotonic() - started
    accepted = [name for name, status in answers if status == 200]
    refused = [name for name, status in answers if status == 429]
    assert len(accepted) + len(refused) == 80
    # 40 and what leaked meanwhile; two buckets would have taken all 80.
    assert 40 <= len(accepted) <= 40 + int(2 * elapsed) + 1, (len(accepted), elapsed)
    assert set(refused) == {"node-a", "node-b"}


class CountingReceiver:
    """A webhook receiver on loopback: the first POST of each event object answers 500,
    later ones 200; every POST is kept."""

    def __init__(self):
        self.posts: list[dict] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with receiver.lock:
                    seen = any(p["id"] == body["id"] for p in receiver.posts)
                    receiver.posts.append(body)
                self.send_response(200 if seen else 500)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_webhook_is_delivered_once_per_attempt_with_both_workers_running(nodes):
    receiver = CountingReceiver()
    try:
        installation = InstallationFactory()
        token = issue_token(installation)
        headers = {"Authentication": f"bearer {token}", "User-Agent": USER_AGENT}
        base = f"/v1/{installation.store_id}"
        hook = requests.post(
            f"{nodes[0].url}{base}/webhooks",
            json={"url": receiver.url, "event": "product/created"},
            headers=headers,
        )
        assert hook.status_code == 201, hook.text
        products = []
        for index in range(16):
            created = requests.post(
                f"{nodes[index % 2].url}{base}/products",
                json={"name": {"es": f"Producto {index}"}},
                headers=headers,
            )
            assert created.status_code == 201, created.text
            products.append(created.json()["id"])

        deliveries = Delivery.objects.filter(store_id=installation.store_id)
        wait_until(
            lambda: (
                deliveries.filter(status=Delivery.PENDING).count() == 0
                and deliveries.count() == len(products)
            ),
            60,
            message="every delivery to finish",
        )
        # Each product: one failed attempt, one retry that succeeded; never a POST more.
        with receiver.lock:
            ids = sorted(post["id"] for post in receiver.posts)
        assert ids == sorted(products * 2)
        assert set(deliveries.values_list("status", flat=True)) == {Delivery.DELIVERED}
        attempts = DeliveryAttempt.objects.filter(delivery__in=deliveries)
        assert sorted(attempts.values_list("status_code", flat=True)) == [200] * 16 + [500] * 16
        # Both nodes' workers took part.
        pids = {
            int(re.search(r"pid (\d+)", w)[1]) for w in attempts.values_list("worker", flat=True)
        }
        for node in nodes:
            assert pids & node.worker_pids(), f"{node.name}'s worker delivered nothing"
    finally:
        receiver.stop()


def test_an_upload_started_on_one_node_completes_on_the_other_after_the_first_dies(nodes):
    """A chunk lands on A, A dies (web and worker, SIGKILL) while receiving the
    next one; B reports the session at the last whole chunk and completes it."""
    a, b = nodes
    session = admin_session()
    created = session.post(f"{a.url}/api/v2.0/projects", json={"project_name": "uploads"})
    assert created.status_code == 201, created.text
    first, second = os.urandom(300_000), os.urandom(500_000)
    started = session.post(f"{a.url}/v2/uploads/big/blobs/uploads/")
    assert started.status_code == 202, started.text
    location = started.headers["Location"]
    patched = session.patch(
        a.url + location,
        data=first,
        headers={
            "Content-Range": f"0-{len(first) - 1}",
            "Content-Type": "application/octet-stream",
        },
    )
    assert patched.status_code == 202, patched.text

    sent_some, test_over = threading.Event(), threading.Event()

    def slow_body():
        yield second[:100_000]
        sent_some.set()
        test_over.wait(30)  # A dies meanwhile
        yield second[100_000:]

    def doomed_patch():
        with contextlib.suppress(requests.RequestException):
            admin_session().patch(
                a.url + location,
                data=slow_body(),
                headers={
                    "Content-Range": f"{len(first)}-{len(first) + len(second) - 1}",
                    "Content-Length": str(len(second)),
                },
                timeout=60,
            )

    sender = threading.Thread(target=doomed_patch, daemon=True)
    sender.start()
    try:
        assert sent_some.wait(30)
        time.sleep(0.5)  # the node has read part of the body
        a.kill()
    finally:
        test_over.set()

    def status_on_b():
        response = session.get(b.url + location)
        return response.status_code == 204 and response

    status = wait_until(status_on_b, 30, message="B to report the session")
    assert status.headers["Range"] == f"0-{len(first) - 1}"

    def resume_on_b():
        # The dead request's hold on the session may outlive it a few seconds (object
        # storage: a lease in the session's row); meanwhile B answers 416, as to any
        # second writer, and the client tries again.
        response = session.patch(
            b.url + location,
            data=second,
            headers={
                "Content-Range": f"{len(first)}-{len(first) + len(second) - 1}",
                "Content-Type": "application/octet-stream",
            },
        )
        assert response.status_code in (202, 416), response.text
        return response.status_code == 202 and response

    resumed = wait_until(resume_on_b, 30, interval=0.5, message="B to take the upload")
    digest = sha256(first + second)
    done = session.put(b.url + resumed.headers["Location"], params={"digest": digest})
    assert done.status_code == 201, done.text
    pulled = session.get(f"{b.url}/v2/uploads/big/blobs/{digest}")
    assert pulled.status_code == 200
    assert pulled.content == first + second
