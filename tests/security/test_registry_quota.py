# ruff: noqa: F811  (pytest fixtures imported from registry_support)
"""Project quota counts the bytes really stored, as Harbor does: every blob the project
holds, from the moment its upload completes, whether a manifest references it or not; a
manifest cannot make its blobs look smaller than they are."""

import functools
import json

from registry.models import Artifact, Project
from tests.races import run_together
from tests.registry_oci.conftest import OCI_CONFIG, OCI_LAYER, OCI_MANIFEST, descriptor
from tests.security.registry_support import (  # noqa: F401
    owner,
    project,
    reg,
    registry_url,
    sha256,
)


def used(reg) -> int:
    summary = reg.request("GET", "/api/v2.0/projects/team/summary").json()
    return summary["quota"]["used"]["storage"]


def test_a_manifest_declaring_other_sizes_than_the_stored_blobs_is_refused(reg):
    layer = b"L" * 5000
    config = b'{"architecture":"amd64","os":"linux"}'
    reg.upload("team/app", layer)
    reg.upload("team/app", config)
    before = used(reg)
    assert before == len(layer) + len(config)
    for lie in ({"size": 1}, {"size": len(layer) + 1}):
        document = {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": descriptor(OCI_CONFIG, config),
            "layers": [{**descriptor(OCI_LAYER, layer), **lie}],
        }
        response, _ = reg.put_manifest("team/app", "lying", document, OCI_MANIFEST)
        assert response.status_code == 400, response.text
        assert response.json()["errors"][0]["code"] == "MANIFEST_INVALID"
    assert not Artifact.objects.exists()
    assert used(reg) == before


def test_blobs_count_when_uploaded_even_if_no_manifest_references_them(reg, blob_storage):
    Project.objects.filter(name="team").update(storage_limit=3000)
    reg.upload("team/app", b"a" * 1500)
    assert used(reg) == 1500
    reg.upload("team/other", b"b" * 1000)
    assert used(reg) == 2500
    # The same bytes in another repository of the project are not counted twice.
    reg.upload("team/third", b"a" * 1500)
    assert used(reg) == 2500
    # Chunked, so nothing is known of its size before it completes: refused then.
    location = reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"]
    chunk = b"c" * 1000
    patched = reg.request("PATCH", location, data=chunk)
    assert patched.status_code == 202
    refused = reg.request("PUT", patched.headers["Location"], params={"digest": sha256(chunk)})
    assert refused.status_code == 403, refused.text
    assert refused.json()["errors"][0]["code"] == "DENIED"
    assert reg.request("HEAD", f"/v2/team/app/blobs/{sha256(chunk)}").status_code == 404
    assert used(reg) == 2500
    # Refused before its bytes were moved: nothing stored that no project is charged for.
    assert not blob_storage.blob_stored(sha256(chunk))


def test_mounting_a_blob_into_a_full_project_is_refused(reg, registry_url):
    Project.objects.filter(name="team").update(storage_limit=1000)
    reg.request("POST", "/api/v2.0/projects", json={"project_name": "roomy"})
    layer = b"m" * 800
    reg.upload("roomy/app", layer)
    reg.upload("team/app", b"n" * 500)
    mounted = reg.request(
        "POST", "/v2/team/app/blobs/uploads/", params={"mount": sha256(layer), "from": "roomy/app"}
    )
    assert mounted.status_code == 403, mounted.text
    assert used(reg) == 500
    assert json.loads(mounted.content)["errors"][0]["code"] == "DENIED"


def test_concurrent_uploads_cannot_together_pass_the_limit(reg):
    Project.objects.filter(name="team").update(storage_limit=1000)
    bodies = [bytes([65 + n]) * 600 for n in range(4)]
    locations = [
        reg.request("POST", "/v2/team/app/blobs/uploads/").headers["Location"] for _ in bodies
    ]

    def complete(location, body):
        return reg.request("PUT", location, params={"digest": sha256(body)}, data=body)

    pairs = zip(locations, bodies, strict=True)
    answers = run_together([functools.partial(complete, *pair) for pair in pairs])
    assert sorted(answer.status_code for answer in answers) == [201, 403, 403, 403]
    assert used(reg) == 600


def test_a_manifest_refused_for_quota_leaves_nothing_stored(reg, blob_storage):
    """A refused push writes nothing: repeated refused manifests (up to 4 MiB each) would
    otherwise fill the disk with bytes no project is charged for."""
    from registry.distribution.models import Blob

    Project.objects.filter(name="team").update(storage_limit=1000)
    index = "application/vnd.oci.image.index.v1+json"
    for number in range(3):
        document = {
            "schemaVersion": 2,
            "mediaType": index,
            "manifests": [],
            "annotations": {"pad": f"{number}" + "x" * 100_000},
        }
        response, digest = reg.put_manifest("team/app", f"t{number}", document, index)
        assert response.status_code == 403, response.text
        assert response.json()["errors"][0]["code"] == "DENIED"
        assert not Blob.objects.filter(digest=digest).exists()
        assert not blob_storage.blob_stored(digest)
    assert used(reg) == 0
