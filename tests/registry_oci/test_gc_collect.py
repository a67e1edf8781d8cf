"""Garbage collection over images pushed through /v2/: what is removed, what is kept, the
bytes freed on disk, pulls afterwards, quota and statistics, dry runs and the window."""

import json
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from registry.distribution import storage
from registry.gc import services
from registry.gc.models import GCExecution
from registry.models import Artifact, Blob, Project, Upload
from registry.services import quota
from tests.conftest import wait_until
from tests.registry_oci.conftest import OCI_INDEX, OCI_MANIFEST, Registry, sha256

GC = "/api/v2.0/system/gc"


def disk_bytes() -> int:
    """`du -sb` of the blob store and the staged uploads."""
    places = [settings.STORAGES["registry"]["OPTIONS"]["location"], settings.REGISTRY_UPLOADS_DIR]
    for place in places:
        Path(place).mkdir(parents=True, exist_ok=True)
    output = subprocess.run(
        ["du", "-sbc", *map(str, places)], capture_output=True, text=True, check=True
    ).stdout
    return int(output.strip().splitlines()[-1].split()[0])


def pull_all(reg: Registry, name: str, reference: str) -> None:
    """Pull a manifest and, recursively, every manifest and blob it references, checking
    each digest."""
    manifest = reg.request(
        "GET",
        f"/v2/{name}/manifests/{reference}",
        headers={"Accept": f"{OCI_MANIFEST}, {OCI_INDEX}"},
    )
    assert manifest.status_code == 200, (name, reference, manifest.text)
    document = manifest.json()
    for child in document.get("manifests", []):
        pull_all(reg, name, child["digest"])
    for item in [document.get("config"), *document.get("layers", [])]:
        if item:
            blob = reg.request("GET", f"/v2/{name}/blobs/{item['digest']}")
            assert blob.status_code == 200, (name, item["digest"])
            assert sha256(blob.content) == item["digest"]


def image(reg: Registry, name: str, tag: str, *layers: bytes, **fields) -> str:
    """An image with a config of its own (so that only its layers are shared)."""
    config = {"architecture": "amd64", "os": "linux", "author": f"{name}:{tag}"}
    return reg.push_image(name, tag, layers=layers, config=config, **fields)


def run_gc(delete_untagged=False, dry_run=False) -> GCExecution:
    """A run in this process (the API test has the worker run them)."""
    execution = GCExecution.objects.create(
        delete_untagged=delete_untagged,
        dry_run=dry_run,
        time_window_hours=settings.GC_TIME_WINDOW_HOURS,
    )
    services.run(execution.pk)
    execution.refresh_from_db()
    assert execution.status == "Success", execution.log
    return execution


def delete(reg: Registry, name: str, reference: str) -> None:
    assert reg.request("DELETE", f"/v2/{name}/manifests/{reference}").status_code == 202


@pytest.fixture
def admin_reg(registry_url, admin) -> Registry:
    return Registry(registry_url, admin.username)


@pytest.mark.worker
def test_gc_through_the_api_frees_what_no_tag_needs(
    celery_worker, reg, admin_reg, project, settings
):
    settings.GC_TIME_WINDOW_HOURS = 0
    kept = image(reg, "team/app", "v2", b"shared-b" * 300, b"only-v2" * 500)
    image(reg, "team/other", "v1", b"shared-a" * 400, b"only-other" * 100)
    gone = image(reg, "team/app", "v1", b"shared-a" * 400, b"shared-b" * 300)
    gone_config = manifest_parts(reg, "team/app", gone)[0]
    gone_size = len(
        reg.request(
            "GET", f"/v2/team/app/manifests/{gone}", headers={"Accept": OCI_MANIFEST}
        ).content
    )
    untagged = image(reg, "team/app", "v3", b"only-v3" * 700)
    delete(reg, "team/app", gone)
    delete(reg, "team/app", "v3")  # the tag only: v3's artifact stays, untagged
    # An upload abandoned past REGISTRY_UPLOAD_EXPIRY_HOURS.
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    reg.request("PATCH", started.headers["Location"], data=b"x" * 4096)
    Upload.objects.update(update_time=timezone.now() - timedelta(days=2))
    gone_blobs = {d["digest"]: d["size"] for d in manifest_parts(reg, "team/app", untagged)}
    gone_blobs[gone_config["digest"]] = gone_config["size"]
    gone_blobs[untagged] = Blob.objects.get(digest=untagged).size
    gone_blobs[gone] = gone_size
    before = disk_bytes()

    answer = admin_reg.request(
        "POST",
        f"{GC}/schedule",
        json={"schedule": {"type": "Manual"}, "parameters": {"delete_untagged": True}},
    )
    assert answer.status_code == 201, answer.text
    gc_id = int(answer.headers["Location"].rsplit("/", 1)[1])

    def finished():
        record = admin_reg.request("GET", f"{GC}/{gc_id}").json()
        return record if record["job_status"] in ("Success", "Error") else None

    record = wait_until(finished, 60, message="the garbage collection to finish")
    assert record["job_status"] == "Success"
    execution = GCExecution.objects.get(pk=gc_id)
    log = admin_reg.request("GET", f"{GC}/{gc_id}/log")
    assert log.headers["Content-Type"].startswith("text/plain")
    text = log.text
    # v1's manifest and config, v3's manifest, config and layer; the upload's 4096 bytes.
    assert f"untagged artifact team/app@{untagged} deleted" in text
    assert "expired upload" in text
    for digest, size in gone_blobs.items():
        assert f"blob {digest} ({size} bytes) deleted" in text
    assert execution.deleted_blobs == 5 and execution.deleted_uploads == 1
    assert execution.freed_bytes == sum(gone_blobs.values()) + 4096
    assert execution.deleted_artifacts == 1
    assert f"{execution.freed_bytes} bytes freed" in text.splitlines()[-1]
    # What the log says was freed is what left the disk.
    assert before - disk_bytes() == execution.freed_bytes
    assert not Upload.objects.exists()
    for digest in gone_blobs:
        assert reg.request("HEAD", f"/v2/team/app/blobs/{digest}").status_code == 404
    pull_all(reg, "team/app", "v2")
    pull_all(reg, "team/app", kept)
    pull_all(reg, "team/other", "v1")
    # The shared layer of the deleted v1 is still served from its other repository.
    assert reg.request("GET", f"/v2/team/app/manifests/{gone}").status_code == 404


def manifest_parts(reg: Registry, name: str, digest: str) -> list[dict]:
    document = reg.request(
        "GET", f"/v2/{name}/manifests/{digest}", headers={"Accept": OCI_MANIFEST}
    ).json()
    return [document["config"], *document["layers"]]


def referenced_bytes(project: Project) -> int:
    """Distinct bytes of the project's manifests and of the blobs they reference."""
    artifacts = Artifact.objects.filter(project=project)
    held = Blob.objects.filter(
        Q(digest__in=artifacts.values("digest")) | Q(artifact_links__artifact__in=artifacts)
    ).distinct()
    return sum(held.values_list("size", flat=True))


@pytest.mark.both_storages
def test_pulls_quota_and_statistics_stay_exact(reg, admin_reg, project, settings, blob_storage):
    settings.GC_TIME_WINDOW_HOURS = 0
    digests = [
        reg.push_image("team/app", f"v{n}", layers=(b"base" * 100, f"layer {n}".encode() * 50))
        for n in range(4)
    ]
    child = reg.push_image("team/multi", "amd64", layers=(b"base" * 100,))
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [
            {
                "mediaType": OCI_MANIFEST,
                "digest": child,
                "size": len(
                    reg.request(
                        "GET", f"/v2/team/multi/manifests/{child}", headers={"Accept": OCI_MANIFEST}
                    ).content
                ),
                "platform": {"architecture": "amd64", "os": "linux"},
            }
        ],
    }
    response, _ = reg.put_manifest("team/multi", "latest", index, OCI_INDEX)
    assert response.status_code == 201
    delete(reg, "team/multi", "amd64")  # the child stays, referenced by the index
    delete(reg, "team/app", digests[0])
    delete(reg, "team/app", "v1")
    # Uploaded, never referenced: counted (as Harbor counts it) until collected.
    stray = reg.upload("team/app", b"stray upload" * 100)
    project.refresh_from_db()
    before = project.storage_used
    assert before == quota.storage_usage(project)
    execution = run_gc(delete_untagged=True)
    assert execution.deleted_artifacts == 1  # v1; the index's child is kept
    assert f"blob {stray} (1200 bytes) deleted" in execution.log
    assert not blob_storage.blob_stored(stray)
    project.refresh_from_db()
    assert project.storage_used < before
    # With no time window, what the project holds is exactly what its artifacts reference.
    assert project.storage_used == referenced_bytes(project) == (quota.storage_usage(project))
    statistics = admin_reg.request("GET", "/api/v2.0/statistics").json()
    assert statistics["total_storage_consumption"] == Project.objects.get().storage_used
    summary = admin_reg.request("GET", "/api/v2.0/projects/team/summary").json()
    assert summary["quota"]["used"]["storage"] == project.storage_used
    for tag in ("v2", "v3"):
        pull_all(reg, "team/app", tag)
    pull_all(reg, "team/multi", "latest")
    assert reg.request("GET", f"/v2/team/app/manifests/{digests[1]}").status_code == 404


def test_dry_run_removes_nothing_and_reports_what_a_run_frees(reg, project, settings):
    settings.GC_TIME_WINDOW_HOURS = 0
    gone = image(reg, "team/app", "v1", b"dry-one" * 100)
    image(reg, "team/app", "v2", b"dry-two" * 100)
    delete(reg, "team/app", "v1")
    blobs_before, disk_before = Blob.objects.count(), disk_bytes()
    dry = run_gc(delete_untagged=True, dry_run=True)
    assert f"untagged artifact team/app@{gone} would be deleted" in dry.log
    assert "would be freed" in dry.log.splitlines()[-1]
    assert (Blob.objects.count(), disk_bytes()) == (blobs_before, disk_before)
    pull_all(reg, "team/app", gone)
    real = run_gc(delete_untagged=True)
    assert (
        (real.freed_bytes, real.deleted_blobs)
        == (dry.freed_bytes, dry.deleted_blobs)
        == (
            real.freed_bytes,
            3,
        )
    )
    assert disk_before - disk_bytes() == real.freed_bytes


def test_the_time_window_keeps_recent_pushes(reg, project, settings):
    settings.GC_TIME_WINDOW_HOURS = 2
    gone = image(reg, "team/app", "v1", b"recent" * 100)
    delete(reg, "team/app", gone)
    kept = run_gc(delete_untagged=True)
    assert (kept.deleted_blobs, kept.freed_bytes) == (0, 0)
    assert "time window 2 hours" in kept.log
    # Three hours later the same blobs are collected.
    Blob.objects.update(update_time=timezone.now() - timedelta(hours=3))
    collected = run_gc()
    assert collected.deleted_blobs == 3


def test_without_delete_untagged_untagged_manifests_keep_their_blobs(reg, project, settings):
    settings.GC_TIME_WINDOW_HOURS = 0
    digest = image(reg, "team/app", "v1", b"untagged" * 100)
    delete(reg, "team/app", "v1")
    execution = run_gc()
    assert (execution.deleted_artifacts, execution.deleted_blobs) == (0, 0)
    pull_all(reg, "team/app", digest)


def test_a_referrer_follows_its_subject_not_delete_untagged(reg, project, settings):
    settings.GC_TIME_WINDOW_HOURS = 0
    subject = reg.push_image("team/app", "v1", layers=(b"signed" * 10,))
    size = len(
        reg.request(
            "GET", f"/v2/team/app/manifests/{subject}", headers={"Accept": OCI_MANIFEST}
        ).content
    )
    signature = reg.push_image(
        "team/app",
        "sha256-sig",
        layers=(b"signature",),
        subject={"mediaType": OCI_MANIFEST, "digest": subject, "size": size},
    )
    delete(reg, "team/app", "sha256-sig")
    execution = run_gc(delete_untagged=True)
    assert execution.deleted_artifacts == 0
    pull_all(reg, "team/app", signature)
    assert (
        json.loads(reg.request("GET", f"/v2/team/app/referrers/{subject}").content)["manifests"][0][
            "digest"
        ]
        == signature
    )


@pytest.mark.both_storages
def test_a_blob_whose_file_was_just_removed_is_blob_unknown_not_a_500(reg, project):
    digest = reg.upload("team/app", b"soon gone")
    # The object gone under a pull that read the row just before a sweep removed both.
    storage.delete_objects([Blob.objects.get(digest=digest).object_name])
    for headers in ({}, {"Range": "bytes=0-3"}):
        answer = reg.request("GET", f"/v2/team/app/blobs/{digest}", headers=headers)
        assert answer.status_code == 404
        assert answer.json()["errors"][0]["code"] == "BLOB_UNKNOWN"
