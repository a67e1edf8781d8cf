"""What only object storage has: blobs past one multipart part, sessions joined from
several segments (copied inside the service or streamed), multipart uploads of a broken-off
body aborted, a session held by a dead node taken over once its lease lapses, pre-signed
redirects, and the health check. The rest of the OCI tests run on S3 too (both_storages)."""

import os
from datetime import timedelta

import pytest
import requests
from django.utils import timezone

from config import health
from registry.distribution.models import Blob, Upload
from tests.conftest import wait_until
from tests.registry_oci.conftest import sha256
from tests.security.registry_support import OpenRequest, basic_header
from tests.services.s3 import s3_client

MIB = 1024 * 1024


@pytest.fixture
def bucket(s3_storage) -> str:
    return s3_storage["S3_BUCKET"]


def multipart_uploads(bucket: str) -> list:
    return s3_client().list_multipart_uploads(Bucket=bucket).get("Uploads", [])


def objects(bucket: str, prefix: str) -> dict:
    listed = s3_client().list_objects_v2(Bucket=bucket, Prefix=prefix)
    return {item["Key"]: item["Size"] for item in listed.get("Contents", [])}


def chunked_upload(reg, data: bytes, sizes: list[int]) -> requests.Response:
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    offset = 0
    for size in sizes:
        answer = reg.request(
            "PATCH",
            location,
            data=data[offset : offset + size],
            headers={"Content-Range": f"{offset}-{offset + size - 1}"},
        )
        assert answer.status_code == 202, answer.text
        location, offset = answer.headers["Location"], offset + size
    return reg.request("PUT", location, params={"digest": sha256(data)}, data=data[offset:])


@pytest.mark.parametrize(
    "sizes",
    [[], [9 * MIB, 6 * MIB], [MIB, 10 * MIB, 3]],
    ids=["one-request", "large-segments", "small-segments"],
)
def test_blobs_past_one_part_are_stored_whole(reg, bucket, sizes):
    """One body of 20 MiB (a multipart upload), segments that are each a valid part (joined
    by copies inside the service) and segments that are not (streamed into one object)."""
    data = os.urandom(20 * MIB + 7)
    done = chunked_upload(reg, data, sizes)
    assert done.status_code == 201, done.text
    digest = sha256(data)
    assert reg.request("GET", f"/v2/team/app/blobs/{digest}").content == data
    tail = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": "bytes=-9"})
    assert (tail.status_code, tail.content) == (206, data[-9:])
    # The staging is gone: one object, the one the blob's row names.
    name = Blob.objects.get(digest=digest).object_name
    assert objects(bucket, "registry/") == {f"registry/{name}": len(data)}
    assert multipart_uploads(bucket) == []


def test_a_broken_off_body_leaves_no_multipart_upload_behind(reg, registry_url, owner, bucket):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    upload_id = location.rstrip("/").rsplit("/", 1)[1]
    assert reg.request("PATCH", location, data=b"x" * 10, headers={"Content-Range": "0-9"})
    size = 24 * MIB
    broken = OpenRequest(
        registry_url,
        "PATCH",
        location,
        {"Authorization": basic_header(owner.username), "Content-Length": str(size)},
    )
    broken.send(os.urandom(18 * MIB))
    wait_until(lambda: multipart_uploads(bucket), message="a part of the body sent on")
    broken.abort()
    wait_until(lambda: not multipart_uploads(bucket), message="the multipart upload aborted")
    wait_until(
        lambda: Upload.objects.filter(id=upload_id, holder__isnull=True).exists(),
        message="the session released",
    )
    assert Upload.objects.get(id=upload_id).offset == 10
    assert list(objects(bucket, f"registry/_uploads/{upload_id}/").values()) == [10]
    data = b"x" * 10 + b"rest"
    done = reg.request("PUT", location, params={"digest": sha256(data)}, data=b"rest")
    assert done.status_code == 201, done.text


def test_a_session_held_by_a_dead_node_is_taken_over_once_its_lease_lapses(reg, bucket):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    upload_id = location.rstrip("/").rsplit("/", 1)[1]
    # A node took the session and died: its lease still runs, then it has lapsed.
    Upload.objects.filter(id=upload_id).update(
        holder="00000000-0000-0000-0000-000000000001",
        held_until=timezone.now() + timedelta(minutes=1),
    )
    refused = reg.request("PATCH", location, data=b"abc", headers={"Content-Range": "0-2"})
    assert refused.status_code == 416
    assert refused.json()["errors"][0]["code"] == "BLOB_UPLOAD_INVALID"
    Upload.objects.filter(id=upload_id).update(held_until=timezone.now() - timedelta(seconds=1))
    taken = reg.request("PATCH", location, data=b"abc", headers={"Content-Range": "0-2"})
    assert taken.status_code == 202
    done = reg.request("PUT", location, params={"digest": sha256(b"abc")})
    assert done.status_code == 201, done.text
    assert objects(bucket, "registry/_uploads/") == {}


def test_a_segment_missing_from_the_bucket_fails_the_digest_check(reg, bucket):
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    upload_id = location.rstrip("/").rsplit("/", 1)[1]
    reg.request("PATCH", location, data=b"first", headers={"Content-Range": "0-4"})
    reg.request("PATCH", location, data=b"second", headers={"Content-Range": "5-10"})
    first = sorted(objects(bucket, f"registry/_uploads/{upload_id}/"))[0]
    s3_client().delete_object(Bucket=bucket, Key=first)
    done = reg.request("PUT", location, params={"digest": sha256(b"firstsecond")})
    assert done.status_code == 400
    assert done.json()["errors"][0]["code"] == "DIGEST_INVALID"
    assert reg.request("HEAD", f"/v2/team/app/blobs/{sha256(b'firstsecond')}").status_code == 404


def test_blob_get_redirects_to_a_presigned_url_when_enabled(reg, bucket, settings):
    data = b"0123456789" * 1000
    digest = reg.upload("team/app", data)
    assert reg.request("GET", f"/v2/team/app/blobs/{digest}").status_code == 200
    settings.REGISTRY_S3_REDIRECT = True
    answer = reg.request("GET", f"/v2/team/app/blobs/{digest}")
    assert answer.status_code == 307
    assert answer.headers["Docker-Content-Digest"] == digest
    target = answer.headers["Location"]
    assert target.startswith(os.environ["TEST_S3_ENDPOINT_URL"])
    assert "Signature=" in target or "X-Amz-Signature=" in target
    # What the client does next: the bucket answers, ranges included, with no credentials.
    assert requests.get(target, timeout=30).content == data
    part = requests.get(target, headers={"Range": "bytes=10-19"}, timeout=30)
    assert (part.status_code, part.content) == (206, data[10:20])
    # HEAD stays an answer of the registry; a blob of another repository is still unknown.
    assert reg.request("HEAD", f"/v2/team/app/blobs/{digest}").status_code == 200
    assert reg.request("GET", f"/v2/team/other/blobs/{digest}").status_code == 404


def test_health_checks_the_bucket(s3_storage, settings):
    assert health.check_storage() is None
    registry = settings.STORAGES["registry"]
    settings.STORAGES = {
        **settings.STORAGES,
        "registry": {**registry, "OPTIONS": {**registry["OPTIONS"], "bucket_name": "missing"}},
    }
    assert "storage not writable" in health.check_storage()


def test_a_request_whose_lease_went_to_another_keeps_nothing(s3_storage, transactional_db):
    """A request that stalled past its lease while another took the session: its bytes are
    not recorded (416 for it), the other's state stands."""
    import io

    from registry.distribution import storage

    upload = Upload.objects.create(repository_name="team/app")
    with storage.hold_upload(upload.id) as held:
        Upload.objects.filter(id=upload.id).update(holder="00000000-0000-0000-0000-000000000002")
        with pytest.raises(storage.UploadBusy):
            held.append(io.BytesIO(b"late bytes"), 10, "sha256")
    upload.refresh_from_db()
    assert (upload.offset, upload.segments) == (0, [])
    assert objects(s3_storage["S3_BUCKET"], "registry/_uploads/") == {}
