# ruff: noqa: F811  (pytest fixtures imported from registry_support)
"""A blob is stored only as the bytes that hash to its digest: overlapping chunks on one
upload session, a chunk broken off midway and stray bytes in the staged file can never
make the registry serve other bytes under a digest (which every later push of the real
content would then take as already present)."""

import uuid

import pytest

from registry.distribution import storage
from registry.distribution.models import Blob, Upload
from tests.conftest import wait_until
from tests.security.registry_support import (  # noqa: F401
    OpenRequest,
    basic_header,
    owner,
    project,
    reg,
    registry_url,
    sha256,
)

pytestmark = pytest.mark.both_storages

MIB = 1024 * 1024
# Past the server's 1 MiB reads: a request holding a session shows by the bytes it staged.
SIZE = 3 * MIB


def patch_request(registry_url, location, owner, length, first_byte=None):
    headers = {
        "Authorization": basic_header(owner.username),
        "Content-Type": "application/octet-stream",
        "Content-Length": str(length),
    }
    if first_byte is not None:
        headers["Content-Range"] = f"{first_byte}-{first_byte + length - 1}"
    return OpenRequest(registry_url, "PATCH", location, headers)


def upload_id(location: str) -> uuid.UUID:
    return uuid.UUID(location.rstrip("/").rsplit("/", 1)[1])


def is_writing(location: str, blob_storage) -> bool:
    """A request holds the session with its body under way: past 1 MiB staged on the
    filesystem; the session's lease taken on S3 (its object is written at the end)."""
    if blob_storage.kind == "filesystem":
        return (blob_storage.staged_bytes(upload_id(location)) or 0) >= MIB
    return Upload.objects.filter(id=upload_id(location), holder__isnull=False).exists()


def released(location: str, blob_storage) -> bool:
    return not Upload.objects.filter(id=upload_id(location), holder__isnull=False).exists()


def test_overlapping_patches_on_one_session_never_poison_the_blob(
    reg, registry_url, owner, blob_storage
):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    mine, theirs = b"A" * SIZE, b"B" * SIZE
    slow = patch_request(registry_url, location, owner, SIZE)
    slow.send(mine[: SIZE // 2])
    wait_until(lambda: is_writing(location, blob_storage), message="the first request writing")
    fast = patch_request(registry_url, location, owner, SIZE)
    fast_status = fast.status_before_body(theirs)
    slow.send(mine[SIZE // 2 :])
    slow_status = slow.status()
    # One request at a time per session: the one arriving second is refused (416).
    assert sorted([fast_status, slow_status]) == [202, 416]
    kept = mine if slow_status == 202 else theirs
    status = reg.request("GET", location)
    assert status.headers["Range"] == f"0-{SIZE - 1}"
    done = reg.request("PUT", location, params={"digest": sha256(kept)})
    assert done.status_code == 201, done.text
    assert Blob.objects.get(digest=sha256(kept)).size == SIZE
    assert storage.read_bytes(sha256(kept)) == kept
    assert reg.request("GET", f"/v2/team/app/blobs/{sha256(kept)}").content == kept


def test_a_patch_broken_off_midway_leaves_the_session_as_it_was(
    reg, registry_url, owner, blob_storage
):
    data = bytes(range(256)) * (SIZE // 256)
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    first = reg.request("PATCH", location, data=data[:1000], headers={"Content-Range": "0-999"})
    assert first.status_code == 202
    broken = patch_request(registry_url, location, owner, len(data) - 1000, first_byte=1000)
    broken.send(data[1000 : 1000 + 2 * MIB])
    wait_until(lambda: is_writing(location, blob_storage), message="part of the chunk staged")
    broken.abort()
    wait_until(lambda: released(location, blob_storage), message="the broken request over")
    wait_until(
        lambda: blob_storage.staged_bytes(upload_id(location)) == 1000,
        message="the staging cut back",
    )
    assert Upload.objects.get(id=upload_id(location)).offset == 1000
    # The session goes on from where it stood, and what is stored is exactly the blob.
    status = reg.request("GET", location)
    assert status.headers["Range"] == "0-999"
    rest = wait_until(
        lambda: (
            reg.request(
                "PATCH",
                location,
                data=data[1000:],
                headers={"Content-Range": f"1000-{len(data) - 1}"},
            ).status_code
            == 202
        ),
        message="the rest accepted once the broken request is over",
    )
    assert rest
    done = reg.request("PUT", location, params={"digest": sha256(data)})
    assert done.status_code == 201, done.text
    assert storage.read_bytes(sha256(data)) == data


def test_stray_bytes_past_the_offset_are_never_stored(reg, blob_storage):
    data = b"the real layer" * 1000
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    assert reg.request("PATCH", location, data=data).status_code == 202
    # A request that died after writing but before recording its offset leaves bytes
    # past the offset; the running hash of this process does not cover them.
    blob_storage.stage_stray_bytes(upload_id(location), b"poison")
    done = reg.request("PUT", location, params={"digest": sha256(data)})
    assert done.status_code == 201, done.text
    assert storage.read_bytes(sha256(data)) == data
    assert Blob.objects.get(digest=sha256(data)).size == len(data)


def test_the_purge_never_takes_a_session_a_request_is_writing(
    reg, registry_url, owner, blob_storage
):
    from datetime import timedelta

    from registry.distribution.blobs import purge_abandoned_uploads

    data = b"P" * SIZE
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    writing = patch_request(registry_url, location, owner, SIZE)
    writing.send(data[: SIZE // 2])
    wait_until(lambda: is_writing(location, blob_storage), message="the request writing")
    assert purge_abandoned_uploads(timedelta(seconds=-1)) == 0
    writing.send(data[SIZE // 2 :])
    assert writing.status() == 202
    done = reg.request("PUT", location, params={"digest": sha256(data)})
    assert done.status_code == 201, done.text
    assert storage.read_bytes(sha256(data)) == data
