"""Uploads under gunicorn as `make run` starts it (not the in-process live server), on the
test database and DATA_DIR: blob bodies read from its socket, and an upload that survives
the server being killed mid-upload.
"""

import hashlib
import http.client
import os
import signal
import socket
from pathlib import Path

import pytest
import requests

from registry.distribution import token
from tests.conftest import database_url, wait_until
from tests.registry_oci.conftest import sha256
from tests.services.web import gunicorn

NAME = "team/app"
pytestmark = pytest.mark.both_storages


def web_server(log_path: Path, blob_storage=None):
    """gunicorn (one worker) on the test database and the test's blob storage (default: the
    filesystem); yields (base URL, process). On S3 a killed server's hold on a session lapses
    in 2 s."""
    return gunicorn(
        database_url(),
        log_path,
        workers=1,
        threads=2,
        REGISTRY_S3_UPLOAD_LEASE_SECONDS=2,
        **(blob_storage.env if blob_storage is not None else {}),
    )


@pytest.fixture
def bearer(project):
    """What docker sends: a token for push and pull in the project (no password hashing in
    the server process, whose hashers differ from the tests')."""
    granted = [token.Scope("repository", NAME, frozenset({"pull", "push"}))]
    return {"Authorization": f"Bearer {token.issue('owner', granted)['token']}"}


def receiving(upload_id: str, first: int, blob_storage) -> bool:
    """The server holds the session with part of the chunk in hand: staged on the
    filesystem; on S3 the session's lease is taken (its object is written at the end)."""
    from registry.distribution.models import Upload

    if blob_storage.kind == "filesystem":
        return (blob_storage.staged_bytes(upload_id) or 0) > first
    return Upload.objects.filter(id=upload_id, holder__isnull=False).exists()


def test_upload_resumes_on_a_new_server_after_a_kill_mid_chunk(bearer, tmp_path, blob_storage):
    mib = 1024 * 1024
    data = os.urandom(6 * mib + 17)
    first, second = mib, 5 * mib
    log_path = tmp_path / "gunicorn.log"

    with web_server(log_path, blob_storage) as (base, process):
        started = requests.post(f"{base}/v2/{NAME}/blobs/uploads/", headers=bearer, timeout=60)
        assert started.status_code == 202, started.text
        location = started.headers["Location"]
        upload_id = started.headers["Docker-Upload-UUID"]
        done = requests.patch(
            base + location,
            data=data[:first],
            headers={**bearer, "Content-Range": f"0-{first - 1}"},
            timeout=60,
        )
        assert done.status_code == 202, done.text
        location = done.headers["Location"]

        # The second chunk breaks off: its first half reaches the server, which dies.
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
            head = (
                f"PATCH {location} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Authorization: {bearer['Authorization']}\r\n"
                f"Content-Range: {first}-{second - 1}\r\n"
                f"Content-Length: {second - first}\r\n\r\n"
            )
            # The server reads a body a MiB at a time: this much gets written at least once.
            half = first + 5 * mib // 2
            connection.sendall(head.encode() + data[first:half])
            wait_until(
                lambda: receiving(upload_id, first, blob_storage),
                60,
                message="part of the chunk staged",
            )
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)

    with web_server(log_path, blob_storage) as (base, _):
        status = requests.get(base + location, headers=bearer, timeout=60)
        assert status.status_code == 204, status.text
        # Only the completed chunk counts; the broken-off bytes are not part of the upload.
        assert status.headers["Range"] == f"0-{first - 1}"

        def resume():
            # On S3 the dead server's hold lapses first (416 until then).
            return requests.patch(
                base + location,
                data=data[first:second],
                headers={**bearer, "Content-Range": f"{first}-{second - 1}"},
                timeout=60,
            )

        resumed = wait_until(
            lambda: (answer := resume()).status_code != 416 and answer, 30, 0.5, "the resume"
        )
        assert resumed.status_code == 202, resumed.text
        digest = sha256(data)
        finished = requests.put(
            base + resumed.headers["Location"],
            params={"digest": digest},
            data=data[second:],
            headers=bearer,
            timeout=60,
        )
        assert finished.status_code == 201, finished.text
        pulled = requests.get(f"{base}/v2/{NAME}/blobs/{digest}", headers=bearer, timeout=60)
        assert pulled.status_code == 200
        assert hashlib.sha256(pulled.content).hexdigest() == digest.split(":")[1]
        assert blob_storage.staged_bytes(upload_id) is None


def test_blob_bodies_read_from_the_socket_keep_the_connection_in_step(
    bearer, tmp_path, blob_storage
):
    """Blob bodies bypass gunicorn's buffers; each next request on the same kept-alive
    connection must still start where the previous body ended, read or not."""
    mib = 1024 * 1024
    blob = os.urandom(3 * mib + 5)
    with web_server(tmp_path / "gunicorn.log", blob_storage) as (base, _):
        port = int(base.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def call(method, path, body=None, headers=None):
            connection.request(method, path, body=body, headers={**bearer, **(headers or {})})
            response = connection.getresponse()
            return response, response.read()

        response, _ = call("POST", f"/v2/{NAME}/blobs/uploads/")
        assert response.status == 202
        sock = connection.sock
        location = response.getheader("Location")
        response, _ = call("PUT", f"{location}?digest={sha256(blob)}", blob)
        assert response.status == 201

        # A chunk refused before its body is read: gunicorn drains the body itself (a small
        # one: past 64 KiB it closes the connection instead).
        response, _ = call("POST", f"/v2/{NAME}/blobs/uploads/")
        location = response.getheader("Location")
        response, _ = call("PATCH", location, b"x" * 30000, {"Content-Range": "5-30004"})
        assert response.status == 416
        # A body read whole, then refused (its digest does not match).
        response, _ = call("PUT", f"{location}?digest={sha256(b'other')}", blob[: 2 * mib])
        assert response.status == 400

        response, pulled = call("GET", f"/v2/{NAME}/blobs/{sha256(blob)}")
        assert response.status == 200
        assert pulled == blob
        # All of it on one connection.
        assert connection.sock is sock
        connection.close()


def test_pulls_still_queued_are_written_when_the_server_stops(reg, bearer, tmp_path, blob_storage):
    """Pull records wait (here: up to ten minutes) for their batch; a clean stop (SIGTERM,
    as `make run` and operators send) writes them."""
    from registry.models import AuditLog, Repository

    digest = reg.push_image(NAME, "v1")
    headers = {**bearer, "Accept": "application/vnd.oci.image.manifest.v1+json"}
    server = gunicorn(
        database_url(),
        tmp_path / "gunicorn.log",
        workers=1,
        threads=2,
        REGISTRY_PULL_RECORD_MS=600_000,
        **blob_storage.env,
    )
    with server as (base, _):
        for reference in ("v1", digest):
            pulled = requests.get(f"{base}/v2/{NAME}/manifests/{reference}", headers=headers)
            assert pulled.status_code == 200
        assert Repository.objects.get(name=NAME).pull_count == 0  # still queued
    assert Repository.objects.get(name=NAME).pull_count == 2
    assert sorted(AuditLog.objects.filter(operation="pull").values_list("resource", flat=True)) == [
        f"{NAME}:v1",
        f"{NAME}@{digest}",
    ]
