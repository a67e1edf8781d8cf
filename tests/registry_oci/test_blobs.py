"""Blob push and pull: monolithic, single-request and chunked uploads, ranges, mounts."""

import hashlib

import pytest

from registry.distribution import hashing
from tests.registry_oci.conftest import sha256


@pytest.mark.both_storages
def test_monolithic_upload_then_head_and_get(reg, blob_storage):
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    assert started.status_code == 202
    assert started.headers["Location"].startswith("/v2/team/app/blobs/uploads/")
    assert started.headers["Docker-Upload-UUID"] in started.headers["Location"]
    assert started.headers["Range"] == "0-0"
    assert started.headers["Docker-Distribution-API-Version"] == "registry/2.0"
    data = b"hello blob" * 1000
    digest = sha256(data)
    done = reg.request("PUT", started.headers["Location"], params={"digest": digest}, data=data)
    assert done.status_code == 201
    assert done.headers["Location"] == f"/v2/team/app/blobs/{digest}"
    assert done.headers["Docker-Content-Digest"] == digest

    head = reg.request("HEAD", f"/v2/team/app/blobs/{digest}")
    assert head.status_code == 200
    assert head.headers["Content-Length"] == str(len(data))
    assert head.headers["Docker-Content-Digest"] == digest
    got = reg.request("GET", f"/v2/team/app/blobs/{digest}")
    assert got.status_code == 200
    assert got.content == data
    assert got.headers["Docker-Content-Digest"] == digest
    # Content-addressed in the storage.
    assert blob_storage.blob_stored(digest)


def test_single_post_with_digest(reg):
    data = b"single request"
    response = reg.request(
        "POST", "/v2/team/app/blobs/uploads/", params={"digest": sha256(data)}, data=data
    )
    assert response.status_code == 201
    assert response.headers["Location"] == f"/v2/team/app/blobs/{sha256(data)}"
    assert reg.request("GET", f"/v2/team/app/blobs/{sha256(data)}").content == data


def test_sha512_digest_is_verified(reg):
    data = b"sha512 content"
    digest = "sha512:" + hashlib.sha512(data).hexdigest()
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    done = reg.request("PUT", started.headers["Location"], params={"digest": digest}, data=data)
    assert done.status_code == 201
    assert reg.request("GET", f"/v2/team/app/blobs/{digest}").content == data


@pytest.mark.both_storages
def test_chunked_upload_with_status_and_out_of_order_chunk(reg):
    data = bytes(range(256)) * 40
    first, second, last = data[:4000], data[4000:9000], data[9000:]
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]

    patched = reg.request(
        "PATCH",
        location,
        data=first,
        headers={
            "Content-Range": f"0-{len(first) - 1}",
            "Content-Type": "application/octet-stream",
        },
    )
    assert patched.status_code == 202
    assert patched.headers["Range"] == "0-3999"
    location = patched.headers["Location"]

    status = reg.request("GET", location)
    assert status.status_code == 204
    assert status.headers["Range"] == "0-3999"
    assert status.headers["Docker-Upload-UUID"] in location

    out_of_order = reg.request(
        "PATCH", location, data=second, headers={"Content-Range": "5000-9999"}
    )
    assert out_of_order.status_code == 416
    assert out_of_order.json()["errors"][0]["code"] == "BLOB_UPLOAD_INVALID"

    patched = reg.request("PATCH", location, data=second, headers={"Content-Range": "4000-8999"})
    assert patched.status_code == 202
    assert patched.headers["Range"] == "0-8999"
    # The last chunk may come with the closing PUT.
    done = reg.request("PUT", location, params={"digest": sha256(data)}, data=last)
    assert done.status_code == 201
    assert reg.request("GET", f"/v2/team/app/blobs/{sha256(data)}").content == data


@pytest.mark.both_storages
def test_upload_resumes_without_the_process_that_started_it(reg, monkeypatch):
    """Upload state is in the database and a staged file: a restarted server finishes it."""
    data = b"resumable " * 500
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    reg.request("PATCH", location, data=data[:2000], headers={"Content-Range": "0-1999"})
    # A restart loses everything held in memory (the running digest included).
    monkeypatch.setattr(hashing, "running", hashing.RunningHashers())
    assert reg.request("GET", location).headers["Range"] == "0-1999"
    reg.request(
        "PATCH", location, data=data[2000:], headers={"Content-Range": f"2000-{len(data) - 1}"}
    )
    done = reg.request("PUT", location, params={"digest": sha256(data)})
    assert done.status_code == 201


@pytest.mark.both_storages
def test_digest_mismatch_is_refused_and_leaves_nothing_visible(reg, blob_storage):
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    upload_id = started.headers["Docker-Upload-UUID"]
    wrong = sha256(b"something else")
    response = reg.request(
        "PUT", started.headers["Location"], params={"digest": wrong}, data=b"actual bytes"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "DIGEST_INVALID"
    assert reg.request("HEAD", f"/v2/team/app/blobs/{wrong}").status_code == 404
    assert reg.request("HEAD", f"/v2/team/app/blobs/{sha256(b'actual bytes')}").status_code == 404
    gone = reg.request("GET", started.headers["Location"])
    assert gone.status_code == 404
    assert gone.json()["errors"][0]["code"] == "BLOB_UPLOAD_UNKNOWN"
    assert blob_storage.staged_bytes(upload_id) is None


def test_malformed_digest_is_digest_invalid(reg):
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    response = reg.request("PUT", started.headers["Location"], params={"digest": "sha256:xyz"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "DIGEST_INVALID"


@pytest.mark.both_storages
def test_cancelled_upload_is_unknown(reg):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    assert reg.request("DELETE", location).status_code == 204
    response = reg.request("PATCH", location, data=b"x")
    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "BLOB_UPLOAD_UNKNOWN"


@pytest.mark.both_storages
def test_an_upload_is_not_cancelled_under_a_request_writing_to_it(reg, blob_storage):
    """DELETE on a session another request holds (a chunk being received, the upload being
    completed) is refused like a second chunk: the staging was removed under the writer,
    whose completion then failed with a 500."""
    from registry.distribution import storage
    from registry.distribution.models import Upload

    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    reg.request("PATCH", location, data=b"half", headers={"Content-Range": "0-3"})
    upload = Upload.objects.get()
    with storage.hold_upload(upload.id):
        refused = reg.request("DELETE", location)
        assert refused.status_code == 416, refused.text
        assert refused.json()["errors"][0]["code"] == "BLOB_UPLOAD_INVALID"
        assert blob_storage.staged_bytes(upload.id) == 4
    done = reg.request("PUT", location, params={"digest": sha256(b"half!")}, data=b"!")
    assert done.status_code == 201, done.text
    assert reg.request("GET", f"/v2/team/app/blobs/{sha256(b'half!')}").content == b"half!"


@pytest.mark.both_storages
def test_range_requests(reg):
    data = b"0123456789"
    digest = reg.upload("team/app", data)
    part = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": "bytes=2-5"})
    assert part.status_code == 206
    assert part.content == b"2345"
    assert part.headers["Content-Range"] == "bytes 2-5/10"
    assert part.headers["Content-Length"] == "4"
    tail = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": "bytes=-3"})
    assert tail.content == b"789"
    open_end = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": "bytes=7-"})
    assert open_end.content == b"789"
    outside = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": "bytes=20-30"})
    assert outside.status_code == 416
    assert outside.headers["Content-Range"] == "bytes */10"


@pytest.mark.both_storages
def test_unsatisfiable_ranges_are_answered_as_the_registry_does(reg):
    """Distribution serves blobs with Go's http.ServeContent: a range it cannot satisfy is
    416 with a plain-text line, no JSON error code (BLOB_UNKNOWN would say the blob is gone);
    `Content-Range: bytes */<size>` only when the range lies past the end."""
    digest = reg.upload("team/app", b"0123456789")

    def get(value):
        return reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": value})

    past = get("bytes=10-")
    assert (past.status_code, past.text) == (416, "invalid range: failed to overlap\n")
    assert past.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert past.headers["Content-Range"] == "bytes */10"
    assert past.headers["Docker-Content-Digest"] == digest
    for value in ("bytes=5-2", "items=0-1", "bytes=x-3", "bytes=--3", "bytes=1_0-"):
        bad = get(value)
        assert (bad.status_code, bad.text) == (416, "invalid range\n"), value
        assert "Content-Range" not in bad.headers, value
    # Ranges the registry ignores: the whole blob. More bytes asked than held, or several
    # ranges (the registry answers those with multipart/byteranges).
    for value in ("bytes=0-9,0-9", "bytes=0-1,4-5"):
        whole = get(value)
        assert (whole.status_code, whole.content) == (200, b"0123456789"), value
    # Past the end among others: the others are served.
    some = get("bytes=20-30, 8-")
    assert (some.status_code, some.content, some.headers["Content-Range"]) == (
        206, b"89", "bytes 8-9/10",
    )  # fmt: skip
    empty = reg.upload("team/app", b"")
    assert (
        reg.request("GET", f"/v2/team/app/blobs/{empty}", headers={"Range": "bytes=0-"}).status_code
        == 200
    )


@pytest.mark.both_storages
def test_cross_repository_mount(reg):
    digest = reg.upload("team/source", b"shared layer")
    mounted = reg.request(
        "POST", "/v2/team/target/blobs/uploads/", params={"mount": digest, "from": "team/source"}
    )
    assert mounted.status_code == 201
    assert mounted.headers["Location"] == f"/v2/team/target/blobs/{digest}"
    assert mounted.headers["Docker-Content-Digest"] == digest
    assert reg.request("GET", f"/v2/team/target/blobs/{digest}").content == b"shared layer"
    # A blob the source does not have: an ordinary upload session instead.
    missing = sha256(b"not there")
    fallback = reg.request(
        "POST", "/v2/team/target/blobs/uploads/", params={"mount": missing, "from": "team/source"}
    )
    assert fallback.status_code == 202
    assert "/blobs/uploads/" in fallback.headers["Location"]


def test_blob_is_only_reachable_in_repositories_that_hold_it(reg):
    digest = reg.upload("team/one", b"private to one")
    response = reg.request("GET", f"/v2/team/two/blobs/{digest}")
    assert response.status_code == 404
    assert response.json() == {
        "errors": [
            {
                "code": "BLOB_UNKNOWN",
                "message": "blob unknown to registry",
                "detail": {"digest": digest},
            }
        ]
    }


def test_blob_delete(reg):
    digest = reg.upload("team/app", b"to delete")
    deleted = reg.request("DELETE", f"/v2/team/app/blobs/{digest}")
    assert deleted.status_code == 202
    assert reg.request("HEAD", f"/v2/team/app/blobs/{digest}").status_code == 404
    again = reg.request("DELETE", f"/v2/team/app/blobs/{digest}")
    assert again.status_code == 404
    assert again.json()["errors"][0]["code"] == "BLOB_UNKNOWN"


@pytest.mark.both_storages
def test_abandoned_uploads_are_purged(reg, blob_storage):
    from datetime import timedelta

    from registry.distribution.blobs import purge_abandoned_uploads
    from registry.distribution.models import Upload

    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    reg.request("PATCH", location, data=b"half", headers={"Content-Range": "0-3"})
    upload = Upload.objects.get()
    assert blob_storage.staged_bytes(upload.id) == 4
    assert purge_abandoned_uploads(timedelta(hours=1)) == 0
    assert purge_abandoned_uploads(timedelta(seconds=-1)) == 1
    assert not Upload.objects.exists()
    assert blob_storage.staged_bytes(upload.id) is None
    assert reg.request("GET", location).status_code == 404


@pytest.mark.both_storages
def test_body_shorter_than_its_content_length_is_size_invalid(reg):
    """A client that stops sending: 400 SIZE_INVALID, and the upload stays where it was."""
    import base64
    import json
    import socket
    from urllib.parse import urlparse

    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    reg.request("PATCH", location, data=b"12345", headers={"Content-Range": "0-4"})
    address = urlparse(reg.url)
    credentials = base64.b64encode(f"{reg.session.auth[0]}:{reg.session.auth[1]}".encode())
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(
            f"PATCH {location} HTTP/1.1\r\nHost: {address.netloc}\r\n"
            f"Authorization: Basic {credentials.decode()}\r\n"
            "Content-Length: 100\r\nConnection: close\r\n\r\n".encode()
            + b"only ten b"
        )
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split()[1] == b"400"
    assert json.loads(body)["errors"][0]["code"] == "SIZE_INVALID"
    assert reg.request("GET", location).headers["Range"] == "0-4"


@pytest.mark.both_storages
def test_empty_chunks_and_the_empty_blob(reg):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    nothing = reg.request("PATCH", location, data=b"")
    assert nothing.status_code == 202
    assert nothing.headers["Range"] == "0-0"
    patched = reg.request("PATCH", location, data=b"abc", headers={"Content-Range": "0-2"})
    assert patched.status_code == 202
    assert reg.request("PATCH", patched.headers["Location"], data=b"").status_code == 202
    done = reg.request("PUT", patched.headers["Location"], params={"digest": sha256(b"abc")})
    assert done.status_code == 201, done.text
    assert reg.request("GET", f"/v2/team/app/blobs/{sha256(b'abc')}").content == b"abc"

    empty = sha256(b"")
    created = reg.request("POST", "/v2/team/app/blobs/uploads/", params={"digest": empty})
    assert created.status_code == 201, created.text
    got = reg.request("GET", f"/v2/team/app/blobs/{empty}")
    assert (got.status_code, got.content, got.headers["Content-Length"]) == (200, b"", "0")
