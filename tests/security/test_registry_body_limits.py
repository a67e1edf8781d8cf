# ruff: noqa: F811  (pytest fixtures imported from other test modules)
"""A manifest body is read no further than its limit, even chunked (no Content-Length to
refuse it by): under gunicorn, a 64 MiB chunked manifest PUT is refused with 413 while the
worker's peak memory stays far below the body's size."""

import hashlib
import time
from pathlib import Path

import pytest
import requests

from registry.distribution import manifest_documents
from tests.registry_oci.test_gunicorn import NAME, bearer, web_server  # noqa: F401
from tests.security.registry_support import owner, project  # noqa: F401

MIB = 1024 * 1024
BODY = 64 * MIB

pytestmark = pytest.mark.django_db(transaction=True)


def worker_pid(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def peak_rss(pid: int) -> int:
    """The process's peak resident memory (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def chunked_body(total: int):
    piece = b"[" * MIB
    for _ in range(total // MIB):
        yield piece


def test_a_chunked_manifest_past_the_limit_is_refused_without_being_buffered(
    bearer,
    tmp_path,
):
    assert BODY > 8 * manifest_documents.MAX_MANIFEST_BYTES
    with web_server(tmp_path / "gunicorn.log") as (base, process):
        # A first manifest PUT loads everything the second one runs.
        warm = requests.put(
            f"{base}/v2/{NAME}/manifests/v1", data=b"{}", headers=bearer, timeout=60
        )
        assert warm.status_code == 400, warm.text
        pid = worker_pid(process.pid)
        before = peak_rss(pid)
        started = time.monotonic()
        refused = requests.put(
            f"{base}/v2/{NAME}/manifests/v1",
            data=chunked_body(BODY),
            headers={**bearer, "Content-Type": manifest_documents.OCI_MANIFEST},
            timeout=120,
        )
        assert refused.status_code == 413, refused.text
        assert refused.json()["errors"][0]["code"] == "SIZE_INVALID"
        grown = peak_rss(pid) - before
        assert grown < 16 * MIB, (
            f"worker grew by {grown / MIB:.0f} MiB in {time.monotonic() - started:.1f}s"
        )


def test_a_chunked_patch_broken_off_under_gunicorn_leaves_the_session_as_it_was(bearer, tmp_path):
    import socket

    from registry.distribution import storage
    from tests.conftest import wait_until

    data = bytes(range(256)) * 8192
    with web_server(tmp_path / "gunicorn.log") as (base, _):
        started = requests.post(f"{base}/v2/{NAME}/blobs/uploads/", headers=bearer, timeout=60)
        location, key = started.headers["Location"], started.headers["Docker-Upload-UUID"]
        first = requests.patch(base + location, data=data[: MIB // 2], headers=bearer, timeout=60)
        assert first.status_code == 202, first.text
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
            head = (
                f"PATCH {location} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Authorization: {bearer['Authorization']}\r\n"
                "Transfer-Encoding: chunked\r\n\r\n"
            )
            connection.sendall(head.encode())
            for start in range(MIB // 2, MIB // 2 + 5 * MIB // 4, 64 * 1024):
                piece = data[start : start + 64 * 1024]
                connection.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            # A last chunk announced and cut short: the client goes away mid-body.
            connection.sendall(b"10000\r\n" + data[:1000])
            wait_until(
                lambda: storage.upload_path(key).stat().st_size > MIB // 2,
                message="part of the chunked body staged",
            )
        # The client is gone mid-body: the staged file is cut back to the saved offset.
        wait_until(
            lambda: storage.upload_path(key).stat().st_size == MIB // 2,
            message="the staged file cut back",
        )
        status = wait_until(
            lambda: requests.get(base + location, headers=bearer, timeout=60),
            message="the session free again",
        )
        assert status.headers["Range"] == f"0-{MIB // 2 - 1}"
        rest = requests.patch(
            base + location, data=iter([data[MIB // 2 :]]), headers=bearer, timeout=60
        )
        assert rest.status_code == 202, rest.text
        done = requests.put(
            base + rest.headers["Location"],
            params={"digest": "sha256:" + hashlib.sha256(data).hexdigest()},
            headers=bearer,
            timeout=60,
        )
        assert done.status_code == 201, done.text
    assert storage.read_bytes("sha256:" + hashlib.sha256(data).hexdigest()) == data
