# ruff: noqa: F811  (pytest fixtures imported from other test modules)
"""A manifest body is read no further than its limit, even chunked (no Content-Length to
refuse it by): under gunicorn, a 64 MiB chunked manifest PUT is refused with 413 while the
worker's peak memory stays far below the body's size."""

import time
from pathlib import Path

import pytest
import requests

from registry.distribution import manifests
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
    assert BODY > 8 * manifests.MAX_MANIFEST_BYTES
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
            headers={**bearer, "Content-Type": manifests.OCI_MANIFEST},
            timeout=120,
        )
        assert refused.status_code == 413, refused.text
        assert refused.json()["errors"][0]["code"] == "SIZE_INVALID"
        grown = peak_rss(pid) - before
        assert grown < 16 * MIB, (
            f"worker grew by {grown / MIB:.0f} MiB in {time.monotonic() - started:.1f}s"
        )
