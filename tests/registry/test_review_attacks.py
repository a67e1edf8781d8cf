"""Attacks on an artifact's additions, tags and accessories through the real push path
(the OCI API and Harbor's API, in process): another tenant's blobs, crafted manifests."""

import hashlib
import inspect
import json
import sys

import pytest

from registry.distribution.models import Referrer
from registry.models import Artifact
from registry.services import artifacts
from tests.registry.conftest import client_for
from tests.registry.factories import ProjectFactory, UserFactory, push
from tests.registry.test_artifact_additions import chart_archive as chart_files

pytestmark = pytest.mark.django_db
RECURSION_LIMIT = sys.getrecursionlimit()

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
HELM_CONFIG = "application/vnd.cncf.helm.config.v1+json"
HELM_CHART = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
FOREIGN = "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip"


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def descriptor(media_type: str, data: bytes) -> dict:
    return {"mediaType": media_type, "digest": digest_of(data), "size": len(data)}


def upload(client, name: str, data: bytes) -> None:
    started = client.post(f"/v2/{name}/blobs/uploads/")
    assert started.status_code == 202, started.content
    done = client.put(
        started["Location"] + f"?digest={digest_of(data)}",
        data=data,
        content_type="application/octet-stream",
    )
    assert done.status_code == 201, done.content


def put_manifest(client, name: str, reference: str, document: dict):
    return client.put(
        f"/v2/{name}/manifests/{reference}",
        data=json.dumps(document).encode(),
        content_type=OCI_MANIFEST,
    )


def chart_archive(values: bytes) -> bytes:
    return chart_files(
        {"demo/Chart.yaml": b"apiVersion: v2\nname: demo\n", "demo/values.yaml": values}
    )


def push_chart(client, name: str, tag: str, archive: bytes, layer_type=HELM_CHART):
    config = b"{}"
    upload(client, name, config)
    document = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor(HELM_CONFIG, config),
        "layers": [descriptor(layer_type, archive)],
    }
    return put_manifest(client, name, tag, document)


def test_a_foreign_layer_does_not_read_another_projects_chart(db):
    victim, attacker = UserFactory(), UserFactory()
    ProjectFactory(name="secret", owner=victim)
    ProjectFactory(name="app", owner=attacker)
    victim_client, attacker_client = client_for(victim), client_for(attacker)
    archive = chart_archive(b"password: hunter2\n")
    upload(victim_client, "secret/chart", archive)
    assert push_chart(victim_client, "secret/chart", "1.0", archive).status_code == 201
    # The attacker knows the digest, not the bytes: the layer is marked foreign (whose
    # blob a push does not require the repository to hold).
    pushed = push_chart(attacker_client, "app/web", "1.0", archive, layer_type=FOREIGN)
    url = "/api/v2.0/projects/app/repositories/web/artifacts/1.0/additions/values.yaml"
    if pushed.status_code == 201:
        read = attacker_client.get(url)
        assert b"hunter2" not in read.content
        assert read.status_code == 404, read.content
    else:
        assert pushed.status_code == 400


HUGE = "9" * 5000  # past Python's 4300-digit bound for int()


@pytest.mark.parametrize(
    "url, status",
    [
        (f"/v2/_catalog?n={HUGE}", 400),
        (f"/api/v2.0/projects/{HUGE}", 404),
        (f"/api/v2.0/projects/{HUGE}/summary", 404),
        (f"/api/v2.0/projects?page={HUGE}", 422),
        (f"/api/v2.0/audit-logs?page_size={HUGE}", 422),
        ("/api/v2.0/projects/99999999999999999999", 404),
        (f"/api/v2.0/users/current/permissions?scope=/project/{HUGE}", 200),
        (f"/v2/_catalog?n={'0' * 5000}1", 200),  # leading zeros: n=1, as Go reads it
    ],
)
def test_a_number_of_thousands_of_digits_is_bad_input_not_500(admin_client, url, status):
    response = admin_client.get(url)
    assert response.status_code == status, response.content[:200]
    if url.startswith("/api/v2.0/projects/9"):
        # Past int64 Harbor reads the segment as a name, and names it so.
        name = url.split("/")[4]
        assert response.json()["errors"][0]["message"] == f"project {name} not found"


def test_a_range_of_thousands_of_digits_is_416_not_500(db):
    owner = UserFactory()
    ProjectFactory(name="app", owner=owner)
    client = client_for(owner)
    upload(client, "app/web", b"0123456789")
    url = f"/v2/app/web/blobs/{digest_of(b'0123456789')}"
    for header in (f"bytes=1-{HUGE}", f"bytes={HUGE}-", f"bytes=-{HUGE}"):
        response = client.get(url, HTTP_RANGE=header)
        # Go's ParseInt fails past int64: ServeContent's "invalid range".
        assert response.status_code == 416, (header[:20], response.status_code)
        assert response.content == b"invalid range\n"


def cosign_signature(client, name: str, subject: str):
    """A cosign signature as cosign pushed it before OCI 1.1: tag `sha256-<hex>.sig`, a
    simplesigning layer."""
    payload = b'{"critical": {"image": {"docker-manifest-digest": "%s"}}}' % subject.encode()
    config = b'{"os":"linux"}'
    upload(client, name, payload)
    upload(client, name, config)
    document = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor("application/vnd.oci.image.config.v1+json", config),
        "layers": [descriptor("application/vnd.dev.cosign.simplesigning.v1+json", payload)],
    }
    tag = subject.replace(":", "-") + ".sig"
    response = put_manifest(client, name, tag, document)
    assert response.status_code == 201, response.content
    return digest_of(json.dumps(document).encode())


def test_a_cosign_signature_by_tag_without_its_subject_here_is_an_ordinary_artifact(db):
    """Signatures kept in a repository of their own (cosign's COSIGN_REPOSITORY), or
    pushed for an image the repository does not hold: Harbor's cosign middleware finds no
    subject and records no accessory; the signature is listed and counted."""
    owner = UserFactory()
    ProjectFactory(name="app", owner=owner)
    client = client_for(owner)
    archive = chart_archive(b"a: 1\n")
    upload(client, "app/web", archive)
    assert push_chart(client, "app/web", "1.0", archive).status_code == 201
    [subject] = Artifact.objects.values_list("digest", flat=True)
    signature = cosign_signature(client, "app/sigs", subject)
    listing = client.get("/api/v2.0/projects/app/repositories/sigs/artifacts")
    assert [a["digest"] for a in listing.json()] == [signature]
    assert listing["X-Total-Count"] == "1"
    repository = client.get("/api/v2.0/projects/app/repositories/sigs").json()
    assert repository["artifact_count"] == 1
    # Where its subject is, it is the subject's accessory, left out of the list.
    cosign_signature(client, "app/web", subject)
    listing = client.get("/api/v2.0/projects/app/repositories/web/artifacts")
    assert [a["digest"] for a in listing.json()] == [subject]


@pytest.mark.parametrize(
    "content_range", [f"0-{HUGE}", f"{HUGE}-0", "\u0660-\u0660"], ids=["end", "start", "arabic"]
)
def test_a_chunk_range_of_thousands_of_digits_or_other_digits_is_416(db, content_range):
    owner = UserFactory()
    ProjectFactory(name="app", owner=owner)
    client = client_for(owner)
    started = client.post("/v2/app/web/blobs/uploads/")
    response = client.patch(
        started["Location"],
        data=b"x",
        content_type="application/octet-stream",
        HTTP_CONTENT_RANGE=content_range,
    )
    assert response.status_code == 416, response.content
    assert response.json()["errors"][0]["code"] == "BLOB_UPLOAD_INVALID"


def test_a_chain_of_accessories_deeper_than_python_s_recursion_is_deleted(db):
    """Each accessory the subject of the next: deleting the first takes them all (the
    recursive deletion raised RecursionError past Python's limit: a 500 on either API, and
    in garbage collection's untagged sweep, which deletes through the same service). The
    limit is lowered here so that a short chain is deep enough."""
    project = ProjectFactory(name="app", owner=UserFactory())
    root = push(project, "web", "v1")
    chain = Artifact.objects.bulk_create(
        Artifact(
            repository=root.repository,
            project=project,
            digest=digest_of(b"%d" % n),
            media_type="application/vnd.oci.image.config.v1+json",
            manifest_media_type=OCI_MANIFEST,
            push_time=root.push_time,
        )
        for n in range(300)
    )
    Referrer.objects.bulk_create(
        Referrer(artifact=artifact, subject_digest=subject.digest, media_type=OCI_MANIFEST, size=1)
        for subject, artifact in zip([root, *chain[:-1]], chain, strict=True)
    )
    depth = len(inspect.stack(0))
    sys.setrecursionlimit(depth + 250)
    try:
        deleted = artifacts.delete_artifact(root)
    finally:
        sys.setrecursionlimit(RECURSION_LIMIT)
    assert deleted == [artifact.digest for artifact in reversed(chain)]  # deepest first
    assert not Artifact.objects.exists()
