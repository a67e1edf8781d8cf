# ruff: noqa: F811  (pytest fixtures imported from registry_support)
"""A blob is stored only as the bytes that hash to its digest: overlapping chunks on one
upload session, a chunk broken off midway and stray bytes in the staged file can never
make the registry serve other bytes under a digest (which every later push of the real
content would then take as already present)."""

import uuid

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
    settle,
    sha256,
)

SIZE = 200_000


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


def test_overlapping_patches_on_one_session_never_poison_the_blob(reg, registry_url, owner):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    mine, theirs = b"A" * SIZE, b"B" * SIZE
    slow = patch_request(registry_url, location, owner, SIZE)
    slow.send(mine[: SIZE // 2])
    settle()
    fast = patch_request(registry_url, location, owner, SIZE)
    fast.send(theirs)
    fast_status = fast.status()
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


def test_a_patch_broken_off_midway_leaves_the_session_as_it_was(reg, registry_url, owner):
    data = bytes(range(256)) * 1000
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    first = reg.request("PATCH", location, data=data[:1000], headers={"Content-Range": "0-999"})
    assert first.status_code == 202
    broken = patch_request(registry_url, location, owner, len(data) - 1000, first_byte=1000)
    broken.send(data[1000:50_000])
    settle()
    broken.abort()
    key = upload_id(location)
    wait_until(
        lambda: storage.upload_path(key).stat().st_size == 1000,
        message="the staged file cut back to the saved offset",
    )
    assert Upload.objects.get(id=key).offset == 1000
    # The session goes on from where it stood, and what is stored is exactly the blob.
    status = wait_until(lambda: reg.request("GET", location), message="the session is free")
    assert status.headers["Range"] == "0-999"
    rest = reg.request(
        "PATCH", location, data=data[1000:], headers={"Content-Range": f"1000-{len(data) - 1}"}
    )
    assert rest.status_code == 202, rest.text
    done = reg.request("PUT", rest.headers["Location"], params={"digest": sha256(data)})
    assert done.status_code == 201, done.text
    assert storage.read_bytes(sha256(data)) == data


def test_stray_bytes_past_the_offset_are_never_stored(reg):
    data = b"the real layer" * 1000
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    assert reg.request("PATCH", location, data=data).status_code == 202
    # A request that died after writing but before recording its offset leaves bytes
    # past the offset; the running hash of this process does not cover them.
    with storage.upload_path(upload_id(location)).open("ab") as staged:
        staged.write(b"poison")
    done = reg.request("PUT", location, params={"digest": sha256(data)})
    assert done.status_code == 201, done.text
    assert storage.read_bytes(sha256(data)) == data
    assert Blob.objects.get(digest=sha256(data)).size == len(data)
