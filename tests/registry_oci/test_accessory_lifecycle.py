"""Accessories (artifacts pushed with a `subject`: signatures, SBOMs) as Harbor treats them,
over real pushes: never in the artifact list or its counts, deleted with their subject
(recursively, each audited), a deletion of their own leaving the subject alone."""

import json
from datetime import timedelta
from urllib.parse import urlparse

import oras.client
import oras.oci
import pytest
from django.utils import timezone

from registry.distribution import manifests
from registry.distribution.models import Blob, Referrer
from registry.gc.services import unreferenced
from registry.models import Artifact, AuditLog, Project
from registry.services import artifacts, quota
from tests.races import Interleaving
from tests.registry.factories import PASSWORD
from tests.registry.test_artifact_counts import kept, real
from tests.registry_oci.conftest import (
    OCI_MANIFEST,
    descriptor,
    referrer_document,
    sha256,
    tracked_session,
)
from tests.registry_oci.test_clients import isolated_home  # noqa: F401 (a fixture)

API = "/api/v2.0/projects/team/repositories/app/artifacts"
SBOM = b'{"spdxVersion": "SPDX-2.3", "name": "lifecycle"}'
EMPTY = b"{}"


def listed(reg, **params) -> tuple[set[str], str]:
    response = reg.request("GET", API, params=params)
    assert response.status_code == 200
    return {a["digest"] for a in response.json()}, response.headers["X-Total-Count"]


def manifest_of(reg, digest: str) -> bytes:
    return reg.request("GET", f"/v2/team/app/manifests/{digest}").content


def attach(reg, subject: str, artifact_type: str, reference: str | None = None) -> str:
    """A referrer of `subject` pushed by digest (or `reference`); its digest."""
    document = referrer_document(
        reg, "team/app", artifact_type, manifest_of(reg, subject), annotations={"n": artifact_type}
    )
    digest = sha256(json.dumps(document).encode())
    response, _ = reg.put_manifest("team/app", reference or digest, document, OCI_MANIFEST)
    assert response.status_code == 201, response.text
    return digest


def deletions() -> list[str]:
    logs = AuditLog.objects.filter(operation="delete").order_by("pk")
    return list(logs.values_list("resource", flat=True))


def usage_is_exact() -> bool:
    project = Project.objects.get(name="team")
    return project.storage_used == quota.storage_usage(project)


def test_accessories_are_not_listed_and_go_with_their_subject(
    reg,
    registry_url,
    tmp_path,
    monkeypatch,
    isolated_home,  # noqa: F811
):
    other = reg.push_image("team/app", "other", layers=(b"other",))
    before = Project.objects.get(name="team").storage_used
    subject = reg.push_image("team/app", "v1", layers=(b"signed-one", b"signed-two"))
    host = urlparse(registry_url).netloc
    client = oras.client.OrasClient(hostname=host, insecure=True)
    tracked_session(client.session)
    client.auth.set_basic_auth("owner", PASSWORD)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sig.json").write_text("{}")
    (tmp_path / "sbom.json").write_bytes(SBOM)
    pushed = client.push(
        target=f"{host}/team/app:{subject.replace(':', '-')}.sig",
        files=["sig.json"],
        manifest_config="sig.json:application/vnd.dev.cosign.artifact.sig.v1+json",
        subject=oras.oci.Subject(OCI_MANIFEST, subject, len(manifest_of(reg, subject))),
    )
    signature = pushed.headers["Docker-Content-Digest"]
    # An SBOM of the signature: an accessory of an accessory.
    of_signature = oras.oci.Subject(OCI_MANIFEST, signature, len(manifest_of(reg, signature)))
    pushed = client.push(target=f"{host}/team/app:sbom", files=["sbom.json"], subject=of_signature)
    sbom = pushed.headers["Docker-Content-Digest"]

    # Tagged or not, by every base, accessories are not in the list nor in its total.
    assert listed(reg) == ({subject, other}, "2")
    assert listed(reg, q="base=*") == ({subject, other}, "2")
    assert listed(reg, q="tags=*") == ({subject, other}, "2")
    assert listed(reg, page_size=1)[1] == "2"
    repository = reg.request("GET", "/api/v2.0/projects/team/repositories/app").json()
    assert repository["artifact_count"] == 2
    [found] = reg.request("GET", "/api/v2.0/search", params={"q": "app"}).json()["repository"]
    assert found["artifact_count"] == 2
    accessories = reg.request("GET", f"{API}/{signature}/accessories").json()
    assert [a["digest"] for a in accessories] == [sbom]

    assert reg.request("DELETE", f"{API}/{subject}").status_code == 200
    for gone in (subject, signature, sbom):
        assert reg.request("GET", f"/v2/team/app/manifests/{gone}").status_code == 404
    assert listed(reg) == ({other}, "1")
    assert not Referrer.objects.exists()
    # Deepest first, then the artifact asked for, as Harbor's deleteDeeply audits them.
    assert deletions() == [f"team/app@{sbom}", f"team/app@{signature}", f"team/app@{subject}"]
    assert Project.objects.get(name="team").storage_used == before and usage_is_exact()
    # Nothing holds their blobs any more: garbage collection takes them.
    collectable = set(
        unreferenced(Blob.objects.all(), timezone.now() + timedelta(hours=1)).values_list(
            "digest", flat=True
        )
    )
    assert {signature, sbom, sha256(SBOM), sha256(EMPTY), sha256(b"signed-one")} <= collectable
    assert other not in collectable


def test_oci_delete_takes_accessories_and_an_accessory_goes_alone(reg):
    subject = reg.push_image("team/app", "v1")
    notation = attach(reg, subject, "application/vnd.cncf.notary.signature")
    nested = attach(reg, notation, "application/vnd.goharbor.harbor.sbom.v1", reference="nested")
    sbom = attach(reg, subject, "application/vnd.goharbor.harbor.sbom.v1")

    # An accessory deleted alone leaves its subject and its siblings.
    assert reg.request("DELETE", f"/v2/team/app/manifests/{sbom}").status_code == 202
    assert listed(reg) == ({subject}, "1")
    referrers = reg.request("GET", f"/v2/team/app/referrers/{subject}").json()["manifests"]
    assert [r["digest"] for r in referrers] == [notation]
    assert deletions() == [f"team/app@{sbom}"]

    assert reg.request("DELETE", f"/v2/team/app/manifests/{subject}").status_code == 202
    for gone in (subject, notation, nested):
        assert reg.request("GET", f"/v2/team/app/manifests/{gone}").status_code == 404
    assert reg.request("GET", f"/v2/team/app/referrers/{subject}").json()["manifests"] == []
    assert deletions()[1:] == [
        f"team/app@{nested}",
        f"team/app@{notation}",
        f"team/app@{subject}",
    ]
    assert not Artifact.objects.exists() and kept() == real() and usage_is_exact()


def signature_push(reg) -> tuple[str, bytes]:
    """A signature of v1 (not yet pushed): its digest and bytes."""
    document = referrer_document(
        reg, "team/app", "application/vnd.cncf.notary.signature", manifest_of(reg, "v1")
    )
    body = json.dumps(document).encode()
    return sha256(body), body


@pytest.mark.parametrize("first", ["delete", "push"])
def test_a_signature_pushed_while_its_subject_is_deleted(reg, monkeypatch, first):
    subject = reg.push_image("team/app", "v1")
    signature, body = signature_push(reg)
    interleaving = Interleaving()

    def push_by_api():
        response = reg.request(
            "PUT",
            f"/v2/team/app/manifests/{signature}",
            data=body,
            headers={"Content-Type": OCI_MANIFEST},
        )
        return response.status_code

    def delete_by_api():
        return reg.request("DELETE", f"{API}/{subject}").status_code

    if first == "delete":
        # The delete pauses holding the project's lock; the push waits for it.
        paused = interleaving.after(artifacts._delete_artifacts)
        monkeypatch.setattr(artifacts, "_delete_artifacts", paused)
        _, status = interleaving.run(
            lambda: manifests.delete("team/app", subject, "owner"), push_by_api
        )
        assert status == 201
        # Pushed after its subject went: kept, as a referrer pushed before its subject is.
        assert Referrer.objects.get().artifact.digest == signature
    else:
        # The push pauses holding the lock, before it commits; the delete waits for it.
        paused = interleaving.after(artifacts.record_artifact_push)
        monkeypatch.setattr(artifacts, "record_artifact_push", paused)
        pushed, status = interleaving.run(
            lambda: manifests.push("team/app", signature, body, OCI_MANIFEST), delete_by_api
        )
        assert pushed.subject == subject and status == 200
        # Committed before the delete read the subject's accessories: gone with it.
        assert not Referrer.objects.exists()
        assert reg.request("GET", f"/v2/team/app/manifests/{signature}").status_code == 404
    assert not Artifact.objects.filter(digest=subject).exists()
    assert listed(reg) == (set(), "0")
    assert kept() == real() and usage_is_exact()


def test_a_cosign_signature_pushed_by_its_tag_is_an_accessory(reg):
    """cosign before OCI 1.1: no subject, the tag `sha256-<hex>.sig` names it, a
    simplesigning layer holds the signature (Harbor's cosign middleware)."""
    subject = reg.push_image("team/app", "v1")
    tag = subject.replace(":", "-") + ".sig"
    # Without the simplesigning layer, that tag is only a tag.
    plain = reg.push_image("team/app", tag, layers=(b"not a signature",))
    assert listed(reg) == ({subject, plain}, "2")
    payload = b'{"critical": {"image": {"docker-manifest-digest": "%s"}}}' % subject.encode()
    reg.upload("team/app", payload)
    reg.upload("team/app", EMPTY)
    document = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor("application/vnd.oci.image.config.v1+json", EMPTY),
        "layers": [
            descriptor(
                "application/vnd.dev.cosign.simplesigning.v1+json",
                payload,
                annotations={"dev.cosignproject.cosign/signature": "MEUCIQ=="},
            )
        ],
    }
    response, signature = reg.put_manifest("team/app", tag, document, OCI_MANIFEST)
    assert response.status_code == 201 and "OCI-Subject" not in response.headers

    assert listed(reg) == ({subject, plain}, "2")
    [accessory] = reg.request("GET", f"{API}/{subject}/accessories").json()
    assert accessory["digest"] == signature and accessory["type"] == "signature.cosign"
    assert accessory["icon"] == (
        "sha256:20401d5b3a0f6dbc607c8d732eb08471af4ae6b19811a4efce8c6a724aed2882"
    )
    typed = reg.request(
        "GET", f"{API}/{subject}/accessories", params={"q": "type=signature.cosign"}
    )
    assert [a["digest"] for a in typed.json()] == [signature]
    untyped = reg.request(
        "GET", f"{API}/{subject}/accessories", params={"q": "type=subject.accessory"}
    )
    assert untyped.json() == []
    # Harbor's referrers API lists its accessories, these included.
    referrers = reg.request("GET", f"/v2/team/app/referrers/{subject}").json()["manifests"]
    assert [r["digest"] for r in referrers] == [signature]

    assert reg.request("DELETE", f"/v2/team/app/manifests/{subject}").status_code == 202
    # The tag had moved from `plain` to the signature: it goes with the signature.
    assert reg.request("GET", f"/v2/team/app/manifests/{tag}").status_code == 404
    assert listed(reg) == ({plain}, "1") and not Referrer.objects.exists()
