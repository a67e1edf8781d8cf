"""Artifact deletes racing pushes that share layers with the deleted artifact.

Clients (docker, skopeo, oras) HEAD each layer and skip the upload of one the repository
has, then send the manifest. Deleting the last artifact that referenced such a layer in
between must not fail the push (Distribution keeps a repository's links until garbage
collection); the project's usage still drops at the delete and counts the layer again
once a manifest references it.
"""

import json
import threading
from concurrent.futures import ThreadPoolExecutor

from registry.distribution.usage import project_bytes
from registry.models import Artifact, Project
from tests.registry_oci.conftest import (
    OCI_CONFIG,
    OCI_LAYER,
    OCI_MANIFEST,
    Registry,
    descriptor,
    sha256,
)

BASE = b"shared base layer " * 64


def image(config: bytes, *layers: bytes) -> dict:
    return {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor(OCI_CONFIG, config),
        "layers": [descriptor(OCI_LAYER, layer) for layer in layers],
    }


def push_reusing(reg: Registry, name: str, tag: str, config: bytes, before_manifest=None):
    """A client's push: HEAD the base layer and upload it only when missing, upload the
    config, then (after `before_manifest()`) the manifest."""
    if reg.request("HEAD", f"/v2/{name}/blobs/{sha256(BASE)}").status_code == 404:
        reg.upload(name, BASE)
    reg.upload(name, config)
    if before_manifest is not None:
        before_manifest()
    response, _ = reg.put_manifest(name, tag, image(config, BASE), OCI_MANIFEST)
    return response


def test_a_push_that_found_the_layer_before_its_last_artifact_was_deleted_succeeds(reg):
    first = reg.push_image("team/app", "v1", layers=(BASE,))
    with_base = Project.objects.get(name="team").storage_used

    def delete_v1():
        deleted = reg.request(
            "DELETE", f"/api/v2.0/projects/team/repositories/app/artifacts/{first}"
        )
        assert deleted.status_code == 200
        # The delete releases what no artifact left uses: the base layer no longer counts.
        assert Project.objects.get(name="team").storage_used < with_base - len(BASE)

    pushed = push_reusing(reg, "team/app", "v2", b'{"os":"linux","v":2}', delete_v1)

    assert pushed.status_code == 201, pushed.text
    layer = reg.request("GET", f"/v2/team/app/blobs/{sha256(BASE)}")
    assert layer.status_code == 200
    assert layer.content == BASE
    # Referenced again, the layer counts again, once.
    used = Project.objects.get(name="team").storage_used
    assert used == project_bytes("team")
    assert used >= len(BASE)


def test_a_released_layer_referenced_again_is_charged_against_the_quota(reg):
    first = reg.push_image("team/app", "v1", layers=(BASE,))
    assert (
        reg.request(
            "DELETE", f"/api/v2.0/projects/team/repositories/app/artifacts/{first}"
        ).status_code
        == 200
    )
    config = b'{"os":"linux","v":3}'
    reg.upload("team/app", config)
    used = Project.objects.get(name="team").storage_used
    # Room for the manifest's own bytes, not for the base layer counted again.
    Project.objects.filter(name="team").update(storage_limit=used + 400)

    response, _ = reg.put_manifest("team/app", "v3", image(config, BASE), OCI_MANIFEST)

    assert response.status_code == 403
    assert response.json()["errors"][0]["code"] == "DENIED"
    assert Project.objects.get(name="team").storage_used == used
    assert not Artifact.objects.filter(tags__name="v3").exists()


def test_clients_pushing_while_another_deletes_every_artifact(reg, registry_url, owner):
    """Eight clients push images sharing the base layer into one repository while a ninth
    deletes whatever artifact it finds: every push is accepted, and every artifact left
    is whole (its layer pulls) and counted once."""
    reg.push_image("team/app", "seed", layers=(BASE,))
    done = threading.Event()
    deletes = []

    def deleter():
        client = Registry(registry_url, owner.username)
        while not done.is_set():
            for digest in Artifact.objects.filter(repository__name="team/app").values_list(
                "digest", flat=True
            ):
                deleted = client.request(
                    "DELETE", f"/api/v2.0/projects/team/repositories/app/artifacts/{digest}"
                )
                deletes.append(deleted.status_code)

    def pusher(number: int) -> list[int]:
        client = Registry(registry_url, owner.username)
        return [
            push_reusing(
                client,
                "team/app",
                f"c{number}-{round}",
                json.dumps({"os": "linux", "client": number, "round": round}).encode(),
            ).status_code
            for round in range(4)
        ]

    with ThreadPoolExecutor(9) as pool:
        deleting = pool.submit(deleter)
        try:
            statuses = [status for got in pool.map(pusher, range(8)) for status in got]
        finally:
            done.set()
        deleting.result()

    assert statuses == [201] * 32
    assert set(deletes) <= {200, 404} and 200 in deletes
    for digest in Artifact.objects.filter(repository__name="team/app").values_list(
        "digest", flat=True
    ):
        manifest = json.loads(reg.request("GET", f"/v2/team/app/manifests/{digest}").content)
        for item in [manifest["config"], *manifest["layers"]]:
            assert reg.request("HEAD", f"/v2/team/app/blobs/{item['digest']}").status_code == 200
    assert Project.objects.get(name="team").storage_used == project_bytes("team")
