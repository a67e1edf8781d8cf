"""Garbage collection while clients push: concurrent pushes through a live server re-use,
mount and skip (HEAD) blobs that the collector is removing at that moment; no manifest
the registry accepted may lose a blob, and every tagged image pulls afterwards."""

import json
import random
import threading
import time

import pytest

from registry.distribution import storage
from registry.models import Artifact, ArtifactBlob, Blob
from tests.registry_oci.conftest import (
    OCI_CONFIG,
    OCI_LAYER,
    OCI_MANIFEST,
    Registry,
    descriptor,
    sha256,
)
from tests.registry_oci.test_gc_collect import delete, image, pull_all, run_gc

SECONDS = 15
PUSHERS = 3
PAUSE = 1.5


class Pusher:
    """A client pushing as docker and skopeo do: HEAD each blob, mount it from the seed
    repository or upload it when missing, then the manifest; refused manifests
    (MANIFEST_BLOB_UNKNOWN: a blob removed after its HEAD) are pushed again."""

    def __init__(self, registry_url: str, username: str, number: int, shared: list[bytes]):
        self.reg = Registry(registry_url, username)
        self.name = f"team/app{number}"
        self.number = number
        self.shared = shared
        self.tags: dict[str, str] = {}
        self.refused = 0
        self.pushed = 0
        self.pushed = 0
        self.errors: list[str] = []

    def blob(self, data: bytes) -> None:
        digest = sha256(data)
        if self.reg.request("HEAD", f"/v2/{self.name}/blobs/{digest}").status_code == 200:
            return
        mounted = self.reg.request(
            "POST", f"/v2/{self.name}/blobs/uploads/", params={"mount": digest, "from": "team/seed"}
        )
        if mounted.status_code == 201:
            return
        self.check(mounted, 202)
        done = self.reg.request(
            "PUT", mounted.headers["Location"], params={"digest": digest}, data=data
        )
        self.check(done, 201)

    def push(self, tag: str) -> None:
        layers = [random.choice(self.shared), f"{self.name}:{tag}".encode() * 200]
        config = json.dumps({"architecture": "amd64", "os": "linux", "author": tag}).encode()
        document = {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": descriptor(OCI_CONFIG, config),
            "layers": [descriptor(OCI_LAYER, layer) for layer in layers],
        }
        for _ in range(20):
            for data in [config, *layers]:
                self.blob(data)
            response, digest = self.reg.put_manifest(self.name, tag, document, OCI_MANIFEST)
            if response.status_code == 201:
                self.tags[tag] = digest
                self.pushed += 1
                return
            self.check(response, 400)
            assert response.json()["errors"][0]["code"] == "MANIFEST_BLOB_UNKNOWN"
            self.refused += 1
        self.errors.append(f"{tag}: refused 20 times")

    def check(self, response, status: int) -> None:
        if response.status_code != status:
            self.errors.append(f"{response.request.method} {response.url}: {response.status_code}")
            raise AssertionError(response.text)

    def run(self, stop: threading.Event) -> None:
        count = 0
        try:
            while not stop.is_set():
                tag = f"t{count}"
                self.push(tag)
                # Every other image is deleted again: fresh garbage for the next run.
                if count % 2 and f"t{count - 1}" in self.tags:
                    delete(self.reg, self.name, self.tags.pop(f"t{count - 1}"))
                count += 1
        except Exception as error:  # reported by the test, not lost in the thread
            self.errors.append(repr(error))


@pytest.mark.both_storages
@pytest.mark.django_db(transaction=True)
def test_pushes_racing_garbage_collection_never_lose_a_blob(
    registry_url, owner, project, settings, blob_storage
):
    settings.GC_TIME_WINDOW_HOURS = 0
    shared = [f"shared layer {n}\n".encode() * 3000 for n in range(6)]
    seed = Registry(registry_url, owner.username)
    for n, layer in enumerate(shared):
        # Pushed then deleted: the layers start as garbage the pushers want back.
        delete(seed, "team/seed", image(seed, "team/seed", f"s{n}", layer))
    pushers = [Pusher(registry_url, owner.username, n, shared) for n in range(PUSHERS)]
    stop = threading.Event()
    threads = [threading.Thread(target=p.run, args=(stop,)) for p in pushers]
    for thread in threads:
        thread.start()
    runs = []
    deadline = time.monotonic() + SECONDS
    try:
        while time.monotonic() < deadline:
            runs.append(run_gc(delete_untagged=True))
            # With no time window, a blob uploaded before a run's mark began and not yet in
            # a manifest is garbage: back to back runs would refuse every manifest.
            time.sleep(PAUSE)
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    assert [error for p in pushers for error in p.errors] == []
    # The collector really worked among the pushes.
    assert len(runs) >= 3 and sum(run.deleted_blobs for run in runs) > 10
    assert sum(p.pushed for p in pushers) >= PUSHERS * 2
    # Every manifest the registry holds has its bytes and its blobs, rows and files.
    for artifact in Artifact.objects.all():
        name = Blob.objects.get(digest=artifact.digest).object_name
        assert storage.blob_storage().exists(name)
    for link in ArtifactBlob.objects.select_related("blob"):
        assert storage.blob_storage().exists(link.blob.object_name)
    for pusher in pushers:
        for tag in pusher.tags:
            pull_all(pusher.reg, pusher.name, tag)
    print(
        f"{len(runs)} runs, {sum(r.deleted_blobs for r in runs)} blobs removed, "
        f"{sum(p.pushed for p in pushers)} images pushed, "
        f"{sum(p.refused for p in pushers)} manifests refused and pushed again"
    )
