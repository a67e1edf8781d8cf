"""Blob objects named by their row's generation (registry.distribution.storage): no request
to the storage inside a database transaction, uploads of one digest racing each other or a
sweep, objects no row names removed after their grace period, and blobs stored before
generations (named by the migration) still pulled."""

import threading
from datetime import timedelta

import botocore.client
import pytest
from django.core.files.base import ContentFile
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from registry.distribution import blobs, storage
from registry.gc import services
from registry.models import Blob
from tests.registry.factories import ProjectFactory
from tests.registry_oci.conftest import Registry, sha256
from tests.registry_oci.test_gc_collect import delete, image, pull_all, run_gc
from tests.registry_oci.test_s3_storage import chunked_upload

MIB = 1024 * 1024
BEFORE_GENERATIONS = ("registry", "0006_upload_object_staging")


@pytest.fixture
def s3_calls(s3_storage, monkeypatch):
    """Every request the registry's boto3 clients send to the S3 server (a real one): the
    operation, and whether the calling thread's database connection was inside a
    transaction then."""
    calls: list[tuple[str, bool]] = []
    send = botocore.client.BaseClient._make_api_call

    def recorded(client, operation, params):
        calls.append((operation, connection.in_atomic_block))
        return send(client, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recorded)
    return calls


def test_no_s3_request_is_made_inside_a_transaction(reg, settings, s3_calls):
    """Uploads completing (one body, several segments joined by copies, a digest already
    stored), manifests pushed, a zero-window sweep and the orphan purge."""
    settings.GC_TIME_WINDOW_HOURS = 0
    settings.REGISTRY_ORPHAN_GRACE_MINUTES = 0
    layer = b"L" * (6 * MIB)
    assert chunked_upload(reg, layer + b"tail", [len(layer)]).status_code == 201
    reg.upload("team/other", layer + b"tail")  # dedupe: the row exists already
    digest = image(reg, "team/app", "v1", b"a layer", layer)
    delete(reg, "team/app", digest)
    execution = run_gc(delete_untagged=True)
    assert execution.deleted_blobs >= 4
    operations = {operation for operation, _ in s3_calls}
    assert {"CopyObject", "UploadPartCopy", "PutObject", "DeleteObjects"} <= operations
    assert [operation for operation, inside in s3_calls if inside] == []


@pytest.mark.both_storages
def test_racing_uploads_of_one_digest_both_finish_on_one_object(
    registry_url, owner, project, blob_storage, monkeypatch
):
    """Both find no row and write their own object; one row wins, the other upload links
    it and deletes only its own object, after its commit. In two projects: neither waits
    for the other's project lock, so on PostgreSQL the second INSERT of the digest may
    wait for the first one's commit and fail."""
    ProjectFactory(owner=owner, name="other")
    data = b"the same layer, pushed twice at once\n" * 1000
    digest = sha256(data)
    both_checked = threading.Barrier(2, timeout=30)
    renew = blobs.renew

    def renew_together(wanted):
        found = renew(wanted)
        both_checked.wait()
        return found

    monkeypatch.setattr(blobs, "renew", renew_together)
    answers = {}

    def push(name):
        reg = Registry(registry_url, owner.username)
        location = reg.request("POST", f"/v2/{name}/blobs/uploads/").headers["Location"]
        answers[name] = reg.request("PUT", location, params={"digest": digest}, data=data)

    threads = [threading.Thread(target=push, args=(name,)) for name in ("team/a", "other/b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert {name: answer.status_code for name, answer in answers.items()} == {
        "team/a": 201,
        "other/b": 201,
    }
    row = Blob.objects.get(digest=digest)
    assert blob_storage.blob_objects(digest) == [row.object_name]
    reg = Registry(registry_url, owner.username)
    for name in ("team/a", "other/b"):
        assert reg.request("GET", f"/v2/{name}/blobs/{digest}").content == data


@pytest.mark.both_storages
def test_an_upload_whose_row_a_sweep_removes_meanwhile_writes_a_new_object(
    reg, blob_storage, monkeypatch
):
    """The digest's row and object exist when the upload completes (its bytes would be
    re-used) and a zero-window sweep removes both before the upload's transaction: the
    upload writes the bytes under a new name, which the sweep's delete cannot reach."""
    data = b"garbage wanted back\n" * 500
    digest = reg.upload("team/seed", data)
    old = Blob.objects.get(digest=digest).object_name
    exists = storage.object_exists

    def checked_then_swept(name):
        found = exists(name)
        pk = Blob.objects.get(digest=digest).pk
        assert services.sweep([pk], timezone.now() + timedelta(seconds=1))
        return found

    monkeypatch.setattr(storage, "object_exists", checked_then_swept)
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    done = reg.request("PUT", location, params={"digest": digest}, data=data)
    assert done.status_code == 201, done.text
    new = Blob.objects.get(digest=digest).object_name
    assert new != old
    assert blob_storage.blob_objects(digest) == [new]
    assert reg.request("GET", f"/v2/team/app/blobs/{digest}").content == data


@pytest.mark.both_storages
def test_a_blob_whose_object_was_lost_is_stored_again_by_a_push(reg, blob_storage):
    """Bytes lost outside the registry (an operator's mistake, a storage moved without
    them): uploading or pushing the digest again writes a new object and the row names it."""
    data = b"a layer whose object went missing\n" * 100
    digest = image(reg, "team/app", "v1", data)
    lost = [Blob.objects.get(digest=d).object_name for d in (sha256(data), digest)]
    storage.delete_objects(lost)
    assert reg.request("GET", f"/v2/team/app/blobs/{sha256(data)}").status_code == 404
    assert reg.upload("team/app", data) == sha256(data)
    assert image(reg, "team/app", "v1", data) == digest
    for wanted, old in zip((sha256(data), digest), lost, strict=True):
        name = Blob.objects.get(digest=wanted).object_name
        assert name != old and blob_storage.blob_objects(wanted) == [name]
    pull_all(reg, "team/app", "v1")


@pytest.mark.both_storages
def test_objects_no_row_names_are_removed_after_their_grace_period(reg, blob_storage, settings):
    """What a process that died leaves: an object written and never recorded, and one
    whose row a sweep deleted before it could delete the object."""
    settings.GC_TIME_WINDOW_HOURS = 0
    kept = image(reg, "team/app", "v1", b"a layer still used")
    never_recorded = sha256(b"written, then the process died")
    storage.save_bytes(never_recorded, b"written, then the process died")
    unswept = reg.upload("team/app", b"row deleted, object left")
    Blob.objects.filter(digest=unswept).delete()
    if blob_storage.kind == "s3":
        from tests.services.s3 import s3_client

        s3_client().create_multipart_upload(
            Bucket=blob_storage.env["S3_BUCKET"], Key=f"registry/{storage.new_object_name(unswept)}"
        )
    # Young orphans may still be an upload about to record its object: kept.
    assert run_gc().log.count("blob objects no blob names") == 0
    assert blob_storage.blob_stored(never_recorded) and blob_storage.blob_stored(unswept)
    settings.REGISTRY_ORPHAN_GRACE_MINUTES = 0
    # (Other tests' objects may be counted too: their rows went with their database.)
    assert "blob objects no blob names would be deleted" in run_gc(dry_run=True).log
    assert blob_storage.blob_stored(never_recorded)
    assert "blob objects no blob names deleted" in run_gc().log
    assert not blob_storage.blob_stored(never_recorded)
    assert not blob_storage.blob_stored(unswept)
    if blob_storage.kind == "s3":
        from tests.services.s3 import s3_client

        listed = s3_client().list_multipart_uploads(Bucket=blob_storage.env["S3_BUCKET"])
        assert listed.get("Uploads", []) == []
    pull_all(reg, "team/app", kept)


@pytest.mark.both_storages
def test_blobs_stored_before_generations_still_pull(reg, blob_storage):
    """A deploy with blobs already stored at their content address: the migration names
    each row's object there; pulls, dedupe and garbage collection use that name."""
    data = b"a layer pushed before the upgrade\n" * 100
    digest = sha256(data)
    algorithm, hexpart = digest.split(":")
    legacy = f"blobs/{algorithm}/{hexpart[:2]}/{hexpart}"
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE_GENERATIONS])
    try:
        old = executor.loader.project_state([BEFORE_GENERATIONS]).apps
        blob = old.get_model("registry", "Blob").objects.create(digest=digest, size=len(data))
        old.get_model("registry", "RepositoryBlob").objects.create(
            repository_name="team/app", blob_id=blob.pk
        )
        assert storage.blob_storage().save(legacy, ContentFile(data)) == legacy
    finally:
        # Whatever happened: the next tests need the current schema.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes("registry"))

    assert Blob.objects.get(digest=digest).object_name == legacy
    assert reg.request("GET", f"/v2/team/app/blobs/{digest}").content == data
    part = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers={"Range": "bytes=2-5"})
    assert part.content == data[2:6]
    # Pushed again elsewhere: the stored bytes are re-used, no second object.
    assert reg.upload("team/other", data) == digest
    assert blob_storage.blob_objects(digest) == [legacy]
    # Garbage collection deletes it by that name.
    Blob.objects.filter(digest=digest).update(update_time=timezone.now() - timedelta(days=1))
    assert run_gc().deleted_blobs == 1
    assert not blob_storage.blob_stored(digest)
