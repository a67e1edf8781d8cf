"""An artifact's additions and accessories on Harbor's API: who may read them, and the
accessory list's paging and query count (over real pushes: registry_oci's
test_artifact_extras)."""

import hashlib
import json

import pytest

from registry.distribution import storage
from registry.distribution.models import Referrer
from registry.models import Blob, Role
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, push
from tests.registry.test_robots import project_robot, robot_client

pytestmark = pytest.mark.django_db

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
HISTORY = [{"created": "2024-01-02T03:04:05Z", "created_by": "RUN true"}]


def stored(data: bytes) -> dict:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    name = storage.save_bytes(digest, data)
    Blob.objects.update_or_create(digest=digest, defaults={"size": len(data), "object_name": name})
    return {"mediaType": OCI_CONFIG, "digest": digest, "size": len(data)}


def image(project, repository: str, tag: str, **manifest_fields):
    """An image whose manifest and config are in storage, recorded as a push records it."""
    config = stored(json.dumps({"os": "linux", "history": HISTORY}).encode())
    manifest = json.dumps(
        {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config, "layers": []}
        | manifest_fields
    ).encode()
    descriptor = stored(manifest)
    return push(project, repository, tag, digest=descriptor["digest"], size=len(manifest))


def accessory(project, subject, n: int):
    signature = image(project, "web", f"sig{n}", annotations={"n": str(n)})
    Referrer.objects.create(
        artifact=signature,
        subject_digest=subject.digest,
        media_type=OCI_MANIFEST,
        artifact_type="application/vnd.dev.cosign.artifact.sig.v1+json",
        size=100,
    )
    return signature


@pytest.fixture
def project(alice):
    return ProjectFactory(name="app", owner=alice)


BASE = "/api/v2.0/projects/app/repositories/web/artifacts/v1"
PATHS = ("/additions/build_history", "/additions/vulnerabilities", "/accessories")


def statuses(client) -> list[int]:
    return [client.get(BASE + path).status_code for path in PATHS]


def test_who_may_read(project, anon, bob_client, admin_client):
    image(project, "web", "v1")
    assert statuses(anon) == [401, 401, 401]
    assert statuses(bob_client) == [403, 403, 403]
    outsider = UserFactory()
    MemberFactory(project=ProjectFactory(name="other"), user=outsider, role=Role.PROJECT_ADMIN)
    assert statuses(client_for(outsider)) == [403, 403, 403]
    limited = UserFactory()
    MemberFactory(project=project, user=limited, role=Role.LIMITED_GUEST)
    # Without a scanner the vulnerabilities addition is Harbor's 404 for every reader.
    assert statuses(client_for(limited)) == [200, 404, 200]
    history = client_for(limited).get(BASE + PATHS[0])
    assert json.loads(history.content) == HISTORY
    # Permission first: a missing artifact is still 401/403 to who may not read.
    assert anon.get(BASE.replace("v1", "nope") + PATHS[0]).status_code == 401
    assert admin_client.get(BASE.replace("v1", "nope") + PATHS[0]).status_code == 404


def test_robots_need_their_own_permissions(project, admin_client):
    image(project, "web", "v1")

    def robot(name, *access):
        body = project_robot(name=name, project="app", access=access)
        return robot_client(admin_client.post("/api/v2.0/robots", body, format="json").json())

    assert statuses(robot("puller", ("repository", "pull"))) == [403, 403, 403]
    reader = robot("reader", ("artifact-addition", "read"), ("accessory", "list"))
    assert statuses(reader) == [200, 404, 200]


def test_public_project_for_anyone(alice, anon):
    public = ProjectFactory(name="pub", owner=alice, public=True)
    image(public, "web", "v1")
    url = "/api/v2.0/projects/pub/repositories/web/artifacts/v1"
    assert anon.get(url + "/additions/build_history").status_code == 200
    assert anon.get(url + "/accessories").json() == []


def test_accessories_paging_and_queries(project, alice_client, django_assert_max_num_queries):
    subject = image(project, "web", "v1")
    signatures = [accessory(project, subject, n) for n in range(7)]
    alice_client.get(BASE + "/accessories")  # the process's caches filled
    for size in (2, 100):
        with django_assert_max_num_queries(9):
            page = alice_client.get(BASE + "/accessories", {"page_size": size})
        assert page["X-Total-Count"] == "7"
    assert [a["artifact_id"] for a in page.json()] == [s.pk for s in signatures]
    second = alice_client.get(BASE + "/accessories", {"page": 2, "page_size": 3})
    assert [a["artifact_id"] for a in second.json()] == [s.pk for s in signatures[3:6]]
    assert second["Link"].count("rel=") == 2
    newest = alice_client.get(BASE + "/accessories", {"sort": "-id", "page_size": 1})
    assert newest.json()[0]["artifact_id"] == signatures[-1].pk
    assert alice_client.get(BASE + "/accessories", {"q": "type=subject.accessory"}).json() == []
    bad = alice_client.get(BASE + "/accessories", {"q": "type=~sig"})
    assert bad.status_code == 400


def test_artifact_records_carry_accessories_when_asked(
    project, alice_client, django_assert_max_num_queries
):
    subject = image(project, "web", "v1")
    signatures = [accessory(project, subject, n) for n in range(3)]
    listing = "/api/v2.0/projects/app/repositories/web/artifacts"
    plain = alice_client.get(listing).json()
    assert all(record["accessories"] is None for record in plain)
    alice_client.get(listing, {"with_accessory": "true"})  # the process's caches filled
    with django_assert_max_num_queries(12):
        records = alice_client.get(listing, {"with_accessory": "true", "page_size": 100}).json()
    by_digest = {record["digest"]: record for record in records}
    attached = by_digest[subject.digest]["accessories"]
    assert [a["artifact_id"] for a in attached] == [s.pk for s in signatures]
    assert attached == alice_client.get(BASE + "/accessories").json()
    assert by_digest[signatures[0].digest]["accessories"] is None
    one = alice_client.get(BASE, {"with_accessory": "1"}).json()
    assert one["accessories"] == attached


def test_an_artifact_of_no_known_type_has_no_additions(project, alice_client):
    push(project, "web", "v1", media_type="application/vnd.example.thing.v1+json")
    response = alice_client.get(BASE + "/additions/build_history")
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "the processor for artifact UNKNOWN not found, cannot get the addition"
    )
    assert "addition_links" not in alice_client.get(BASE).json()


def test_a_manifest_missing_from_storage_is_404_not_500(project, alice_client):
    artifact = push(project, "web", "v1")  # recorded, its bytes never stored
    response = alice_client.get(BASE + "/additions/build_history")
    assert response.status_code == 404
    assert response.json()["errors"][0]["message"] == (
        f"the manifest of artifact {artifact.digest} not found"
    )


def test_addition_links_of_a_nested_repository_are_followed(project, alice_client):
    image(project, "team/web", "v1")
    record = alice_client.get("/api/v2.0/projects/app/repositories/team%252Fweb/artifacts/v1")
    href = record.json()["addition_links"]["build_history"]["href"]
    assert "/repositories/team%252Fweb/" in href
    assert json.loads(alice_client.get(href).content) == HISTORY
