"""Manifests, tags, referrers and the catalog over raw HTTP; the records they create."""

import functools
import json

import pytest

from registry.distribution import pulls
from registry.models import Artifact, ArtifactReference, AuditLog, Project, Repository, Tag
from tests.races import run_together
from tests.registry.factories import ProjectFactory
from tests.registry_oci.conftest import (
    DOCKER_LIST,
    DOCKER_MANIFEST,
    OCI_CONFIG,
    OCI_INDEX,
    OCI_LAYER,
    OCI_MANIFEST,
    Registry,
    descriptor,
    sha256,
)


def error_code(response) -> str:
    return response.json()["errors"][0]["code"]


def test_push_then_pull_by_tag_and_digest(reg):
    digest = reg.push_image("team/app", "v1")
    by_tag = reg.request("GET", "/v2/team/app/manifests/v1", headers={"Accept": OCI_MANIFEST})
    assert by_tag.status_code == 200
    assert by_tag.headers["Content-Type"] == OCI_MANIFEST
    assert by_tag.headers["Docker-Content-Digest"] == digest
    assert sha256(by_tag.content) == digest
    by_digest = reg.request("GET", f"/v2/team/app/manifests/{digest}")
    assert by_digest.content == by_tag.content
    head = reg.request("HEAD", "/v2/team/app/manifests/v1")
    assert head.status_code == 200
    assert head.headers["Content-Length"] == str(len(by_tag.content))
    assert head.headers["Docker-Content-Digest"] == digest


def test_push_records_repository_artifact_and_tag(reg):
    layers = (b"a" * 100, b"b" * 200)
    config = {"architecture": "arm64", "os": "linux", "author": "me", "config": {"Env": ["A=1"]}}
    digest = reg.push_image("team/app", "v1", layers=layers, config=config)
    artifact = Artifact.objects.get(digest=digest)
    manifest_size = len(reg.request("GET", "/v2/team/app/manifests/v1").content)
    assert artifact.repository.name == "team/app"
    assert artifact.type == "IMAGE"
    assert artifact.media_type == OCI_CONFIG
    assert artifact.manifest_media_type == OCI_MANIFEST
    assert artifact.size == manifest_size + len(json.dumps(config)) + 300
    assert artifact.extra_attrs == config
    assert list(artifact.tags.values_list("name", flat=True)) == ["v1"]


def test_pull_counts_in_pull_count_and_pull_time(reg):
    reg.push_image("team/app", "v1")
    reg.request("GET", "/v2/team/app/manifests/v1")
    reg.request("GET", "/v2/team/app/manifests/v1")
    reg.request("HEAD", "/v2/team/app/manifests/v1")
    pulls.flush()  # recorded after the response (the pull never waits for the write)
    repository = Repository.objects.get(name="team/app")
    assert repository.pull_count == 2
    assert Tag.objects.get(name="v1").pull_time is not None
    assert Artifact.objects.get().pull_time is not None


def test_a_pull_by_digest_times_the_artifact_not_its_tags(reg):
    digest = reg.push_image("team/app", "v1")
    pushed = Repository.objects.get(name="team/app").update_time
    assert reg.request("GET", f"/v2/team/app/manifests/{digest}").status_code == 200
    pulls.flush()
    repository = Repository.objects.get(name="team/app")
    assert (repository.pull_count, repository.update_time > pushed) == (1, True)
    assert Artifact.objects.get().pull_time is not None
    assert Tag.objects.get(name="v1").pull_time is None


def test_concurrent_pulls_all_count(reg, registry_url, owner):
    """Pulls at the same moment each add one to pull_count (none is lost to another)."""
    reg.push_image("team/app", "v1")
    clients = [Registry(registry_url, owner.username) for _ in range(6)]
    for client in clients:
        client.request("GET", "/v2/")  # connect and sign in before the race starts

    def pull(client):
        return [client.request("GET", "/v2/team/app/manifests/v1").status_code for _ in range(3)]

    assert run_together([functools.partial(pull, client) for client in clients]) == [[200] * 3] * 6
    pulls.flush()
    assert Repository.objects.get(name="team/app").pull_count == 18


def test_docker_schema2_and_manifest_list(reg):
    amd = reg.push_image("team/multi", "amd", docker=True, layers=(b"amd",))
    arm = reg.push_image("team/multi", "arm", docker=True, layers=(b"arm",))
    manifests = [
        reg.request("GET", f"/v2/team/multi/manifests/{digest}").content for digest in (amd, arm)
    ]
    listing = {
        "schemaVersion": 2,
        "mediaType": DOCKER_LIST,
        "manifests": [
            descriptor(
                DOCKER_MANIFEST, manifests[0], platform={"architecture": "amd64", "os": "linux"}
            ),
            descriptor(
                DOCKER_MANIFEST, manifests[1], platform={"architecture": "arm64", "os": "linux"}
            ),
        ],
    }
    response, digest = reg.put_manifest("team/multi", "latest", listing, DOCKER_LIST)
    assert response.status_code == 201
    got = reg.request("GET", "/v2/team/multi/manifests/latest")
    assert got.headers["Content-Type"] == DOCKER_LIST
    index = Artifact.objects.get(digest=digest)
    assert index.manifest_media_type == DOCKER_LIST
    references = ArtifactReference.objects.filter(parent=index).order_by("child_digest")
    assert {r.child_digest for r in references} == {amd, arm}
    assert {r.platform["architecture"] for r in references} == {"amd64", "arm64"}


def test_oci_index_needs_its_children(reg):
    image = reg.push_image("team/multi", "one")
    child = reg.request("GET", f"/v2/team/multi/manifests/{image}").content
    missing = sha256(b"not a pushed manifest")
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [
            descriptor(OCI_MANIFEST, child),
            {"mediaType": OCI_MANIFEST, "digest": missing, "size": 10},
        ],
    }
    response, _ = reg.put_manifest("team/multi", "idx", index, OCI_INDEX)
    assert response.status_code == 400
    assert error_code(response) == "MANIFEST_BLOB_UNKNOWN"
    assert response.json()["errors"][0]["detail"] == {"digest": missing}
    index["manifests"].pop()
    response, digest = reg.put_manifest("team/multi", "idx", index, OCI_INDEX)
    assert response.status_code == 201
    assert Artifact.objects.get(digest=digest).references.get().child.digest == image


def test_manifest_with_unknown_blob_is_refused(reg):
    config = b"{}"
    reg.upload("team/app", config)
    document = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor(OCI_CONFIG, config),
        "layers": [descriptor(OCI_LAYER, b"never uploaded")],
    }
    response, _ = reg.put_manifest("team/app", "v1", document, OCI_MANIFEST)
    assert response.status_code == 400
    assert error_code(response) == "MANIFEST_BLOB_UNKNOWN"
    assert not Artifact.objects.exists()


def empty_image(reg) -> dict:
    """A layerless OCI image manifest whose config is pushed to team/app."""
    config = b"{}"
    reg.upload("team/app", config)
    return {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor(OCI_CONFIG, config),
        "layers": [],
    }


def test_invalid_manifests(reg):
    good = empty_image(reg)
    cases = [
        (b"not json", OCI_MANIFEST),
        (json.dumps({**good, "schemaVersion": 1}).encode(), OCI_MANIFEST),
        (json.dumps(good).encode(), DOCKER_MANIFEST),  # Content-Type disagrees with mediaType
        (json.dumps({**good, "layers": "x"}).encode(), OCI_MANIFEST),
        (json.dumps({**good, "mediaType": "text/plain"}).encode(), "text/plain"),
    ]
    for body, content_type in cases:
        response = reg.request(
            "PUT", "/v2/team/app/manifests/v1", data=body, headers={"Content-Type": content_type}
        )
        assert response.status_code == 400, body
        assert error_code(response) == "MANIFEST_INVALID"
    bad_tag = reg.request(
        "PUT",
        "/v2/team/app/manifests/-bad",
        data=json.dumps(good),
        headers={"Content-Type": OCI_MANIFEST},
    )
    assert error_code(bad_tag) == "MANIFEST_INVALID"
    wrong_digest = reg.request(
        "PUT",
        f"/v2/team/app/manifests/{sha256(b'other')}",
        data=json.dumps(good),
        headers={"Content-Type": OCI_MANIFEST},
    )
    assert wrong_digest.status_code == 400
    assert error_code(wrong_digest) == "DIGEST_INVALID"
    huge = reg.request(
        "PUT",
        "/v2/team/app/manifests/v1",
        data=b" " * (4 * 1024 * 1024 + 1),
        headers={"Content-Type": OCI_MANIFEST},
    )
    assert huge.status_code == 413
    assert error_code(huge) == "SIZE_INVALID"


def test_manifests_with_members_that_cannot_be_recorded_are_invalid(reg):
    """Members Distribution decodes into typed Go fields, nesting no decoder takes and
    strings the database cannot hold are MANIFEST_INVALID, never a 500, and record nothing."""
    good = empty_image(reg)
    child = {"mediaType": OCI_MANIFEST, "digest": sha256(b"c"), "size": 1}
    index = {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [child]}
    deep = "[" * 100_000 + "]" * 100_000
    cases = [
        (b'{"schemaVersion": 2, "layers": ' + deep.encode() + b"}", OCI_MANIFEST),
        (json.dumps({**good, "x": json.loads("[" * 300 + "]" * 300)}).encode(), OCI_MANIFEST),
        (json.dumps({**good, "annotations": "text"}).encode(), OCI_MANIFEST),
        (json.dumps({**good, "annotations": {"a": 1}}).encode(), OCI_MANIFEST),
        (json.dumps({**good, "annotations": {"a": "b\x00"}}).encode(), OCI_MANIFEST),
        (json.dumps({**good, "artifactType": {"a": "b"}}).encode(), OCI_MANIFEST),
        (json.dumps({**good, "artifactType": "x" * 256}).encode(), OCI_MANIFEST),
        (
            json.dumps({**good, "config": {**good["config"], "mediaType": ["x"]}}).encode(),
            OCI_MANIFEST,
        ),
        (
            json.dumps({**good, "config": {**good["config"], "mediaType": "x\x00"}}).encode(),
            OCI_MANIFEST,
        ),
        (json.dumps({**index, "manifests": [{**child, "platform": "linux"}]}).encode(), OCI_INDEX),
        (json.dumps({**index, "manifests": [{**child, "urls": [1]}]}).encode(), OCI_INDEX),
    ]
    for body, content_type in cases:
        response = reg.request(
            "PUT", "/v2/team/app/manifests/v1", data=body, headers={"Content-Type": content_type}
        )
        assert response.status_code == 400, body[:100]
        assert error_code(response) == "MANIFEST_INVALID"
    assert not Artifact.objects.exists()


def test_an_image_config_that_cannot_be_recorded_gives_no_extra_attrs(reg):
    """The config is the client's bytes: one too deep for the decoder, or holding a NUL,
    is pushed as an image without its attributes (not a 500)."""
    for tag, config in (
        ("deep", b'{"os": "linux", "config": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        ("nested", json.dumps({"os": "linux", "config": json.loads("[" * 300 + "]" * 300)})),
        ("nul", json.dumps({"os": "linux\x00"}).encode()),
    ):
        config = config if isinstance(config, bytes) else config.encode()
        reg.upload("team/app", config)
        document = {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": descriptor(OCI_CONFIG, config),
            "layers": [],
        }
        response, digest = reg.put_manifest("team/app", tag, document, OCI_MANIFEST)
        assert response.status_code == 201, response.text
        assert Artifact.objects.get(digest=digest).extra_attrs is None
    listed = reg.request("GET", "/api/v2.0/projects/team/repositories/app/artifacts")
    assert listed.status_code == 200
    assert len(listed.json()) == 3


def test_unknown_manifest_and_repository(reg):
    reg.push_image("team/app", "v1")
    missing_tag = reg.request("GET", "/v2/team/app/manifests/nope")
    assert missing_tag.status_code == 404
    assert error_code(missing_tag) == "MANIFEST_UNKNOWN"
    missing_digest = reg.request("HEAD", f"/v2/team/app/manifests/{sha256(b'x')}")
    assert missing_digest.status_code == 404
    missing_repo = reg.request("GET", "/v2/team/nothing/tags/list")
    assert missing_repo.status_code == 404
    assert error_code(missing_repo) == "NAME_UNKNOWN"


def test_delete_tag_then_manifest(reg):
    digest = reg.push_image("team/app", "v1")
    reg.push_image("team/app", "v2")
    assert reg.request("DELETE", "/v2/team/app/manifests/v1").status_code == 202
    assert reg.request("GET", "/v2/team/app/manifests/v1").status_code == 404
    assert reg.request("GET", f"/v2/team/app/manifests/{digest}").status_code == 200
    assert reg.request("DELETE", f"/v2/team/app/manifests/{digest}").status_code == 202
    gone = reg.request("GET", f"/v2/team/app/manifests/{digest}")
    assert error_code(gone) == "MANIFEST_UNKNOWN"
    assert not Artifact.objects.filter(digest=digest).exists()
    again = reg.request("DELETE", f"/v2/team/app/manifests/{digest}")
    assert again.status_code == 404
    assert error_code(again) == "MANIFEST_UNKNOWN"


def test_what_is_pushed_is_listed_by_the_management_api(reg):
    digest = reg.push_image("team/app", "v1")
    listed = reg.request("GET", "/api/v2.0/projects/team/repositories/app/artifacts")
    assert listed.status_code == 200
    [artifact] = listed.json()
    assert artifact["digest"] == digest
    assert artifact["type"] == "IMAGE"
    assert artifact["manifest_media_type"] == OCI_MANIFEST
    assert artifact["media_type"] == OCI_CONFIG
    assert artifact["extra_attrs"]["architecture"] == "amd64"
    assert [tag["name"] for tag in artifact["tags"]] == ["v1"]
    repository = reg.request("GET", "/api/v2.0/projects/team/repositories/app").json()
    assert repository["name"] == "team/app"
    assert repository["artifact_count"] == 1


def test_artifact_deleted_by_the_management_api_is_gone_from_v2(reg):
    digest = reg.push_image("team/app", "v1")
    other = reg.push_image("team/app", "v2", layers=(b"other",))
    deleted = reg.request("DELETE", f"/api/v2.0/projects/team/repositories/app/artifacts/{digest}")
    assert deleted.status_code == 200
    assert reg.request("GET", f"/v2/team/app/manifests/{digest}").status_code == 404
    assert reg.request("GET", "/v2/team/app/tags/list").json()["tags"] == ["v2"]
    assert reg.request("GET", f"/v2/team/app/manifests/{other}").status_code == 200


def test_repository_deleted_by_the_management_api_is_gone_from_v2(reg):
    digest = reg.push_image("team/app", "v1")
    layer = sha256(b"layer-one")
    assert reg.request("DELETE", "/api/v2.0/projects/team/repositories/app").status_code == 200
    assert reg.request("GET", f"/v2/team/app/manifests/{digest}").status_code == 404
    assert reg.request("GET", f"/v2/team/app/blobs/{layer}").status_code == 404
    assert reg.request("GET", "/v2/team/app/tags/list").status_code == 404


def test_referrers(reg):
    subject = reg.push_image("team/app", "v1")
    subject_bytes = reg.request("GET", "/v2/team/app/manifests/v1").content
    empty = b"{}"
    reg.upload("team/app", empty)
    signature = b"signature bytes"
    reg.upload("team/app", signature)
    referrer = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "artifactType": "application/vnd.example.signature",
        "config": descriptor("application/vnd.oci.empty.v1+json", empty),
        "layers": [descriptor("application/octet-stream", signature)],
        "subject": descriptor(OCI_MANIFEST, subject_bytes),
        "annotations": {"org.example": "yes"},
    }
    response, referrer_digest = reg.put_manifest(
        "team/app", sha256(json.dumps(referrer).encode()), referrer, OCI_MANIFEST
    )
    assert response.status_code == 201
    assert response.headers["OCI-Subject"] == subject

    listed = reg.request("GET", f"/v2/team/app/referrers/{subject}")
    assert listed.status_code == 200
    assert listed.headers["Content-Type"] == OCI_INDEX
    body = listed.json()
    assert body["schemaVersion"] == 2 and body["mediaType"] == OCI_INDEX
    assert body["manifests"] == [
        {
            "mediaType": OCI_MANIFEST,
            "digest": referrer_digest,
            "size": len(json.dumps(referrer).encode()),
            "artifactType": "application/vnd.example.signature",
            "annotations": {"org.example": "yes"},
        }
    ]
    assert "OCI-Filters-Applied" not in listed.headers
    filtered = reg.request(
        "GET",
        f"/v2/team/app/referrers/{subject}",
        params={"artifactType": "application/vnd.example.signature"},
    )
    assert filtered.headers["OCI-Filters-Applied"] == "artifactType"
    assert len(filtered.json()["manifests"]) == 1
    other = reg.request(
        "GET", f"/v2/team/app/referrers/{subject}", params={"artifactType": "application/x-other"}
    )
    assert other.json()["manifests"] == []
    nothing = reg.request("GET", f"/v2/team/app/referrers/{sha256(b'unknown')}")
    assert nothing.status_code == 200
    assert nothing.json()["manifests"] == []
    invalid = reg.request("GET", "/v2/team/app/referrers/sha256:nothex")
    assert invalid.status_code == 400
    # Deleting the referrer removes it from the list.
    reg.request("DELETE", f"/v2/team/app/manifests/{referrer_digest}")
    assert reg.request("GET", f"/v2/team/app/referrers/{subject}").json()["manifests"] == []


def test_tags_list_paging(reg):
    digest = reg.push_image("team/app", "a")
    for tag in ("e", "c", "b", "d"):
        document = reg.request("GET", f"/v2/team/app/manifests/{digest}").json()
        response, _ = reg.put_manifest("team/app", tag, document, OCI_MANIFEST)
        assert response.status_code == 201
    full = reg.request("GET", "/v2/team/app/tags/list")
    assert full.json() == {"name": "team/app", "tags": ["a", "b", "c", "d", "e"]}
    assert "Link" not in full.headers
    first = reg.request("GET", "/v2/team/app/tags/list", params={"n": 2})
    assert first.json()["tags"] == ["a", "b"]
    assert first.headers["Link"] == '</v2/team/app/tags/list?last=b&n=2>; rel="next"'
    second = reg.request("GET", "/v2/team/app/tags/list?last=b&n=2")
    assert second.json()["tags"] == ["c", "d"]
    third = reg.request("GET", "/v2/team/app/tags/list?last=d&n=2")
    assert third.json()["tags"] == ["e"]
    assert "Link" not in third.headers
    assert reg.request("GET", "/v2/team/app/tags/list?n=0").json()["tags"] == []
    bad = reg.request("GET", "/v2/team/app/tags/list?n=x")
    assert bad.status_code == 400
    assert error_code(bad) == "PAGINATION_NUMBER_INVALID"


def test_catalog_is_for_admins(reg, registry_url, admin):
    reg.push_image("team/b-app", "v1")
    reg.push_image("team/a-app", "v1")
    refused = reg.request("GET", "/v2/_catalog")
    assert refused.status_code == 401
    catalog = Registry(registry_url, admin.username)
    assert catalog.request("GET", "/v2/_catalog").json() == {
        "repositories": ["team/a-app", "team/b-app"]
    }
    paged = catalog.request("GET", "/v2/_catalog?n=1")
    assert paged.json() == {"repositories": ["team/a-app"]}
    assert paged.headers["Link"] == '</v2/_catalog?last=team%2Fa-app&n=1>; rel="next"'
    assert catalog.request("GET", "/v2/_catalog?n=1&last=team/a-app").json() == {
        "repositories": ["team/b-app"]
    }


def test_quota_refuses_a_push_over_the_limit(reg):
    Project.objects.filter(name="team").update(storage_limit=1000)
    small = reg.push_image("team/app", "small", layers=(b"x" * 10,))
    used = Project.objects.get(name="team").storage_used
    # Config, layer and manifest, each at its stored size.
    assert used == Artifact.objects.get(digest=small).size
    # A layer that cannot fit is refused when the upload completes.
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    big = b"y" * 1000
    refused = reg.request(
        "PUT", started.headers["Location"], params={"digest": sha256(big)}, data=big
    )
    assert refused.status_code == 403
    assert error_code(refused) == "DENIED"
    assert "exceed the configured upper limit" in refused.json()["errors"][0]["message"]
    # Layers are charged when their upload completes (as Harbor does)...
    layer = b"z" * 250
    reg.upload("team/app", layer)
    used += len(layer)
    assert Project.objects.get(name="team").storage_used == used
    # ...and a manifest whose own bytes no longer fit is refused.
    config = b'{"os":"linux"}'
    reg.upload("team/app", config)
    used += len(config)
    Project.objects.filter(name="team").update(storage_limit=used + 10)
    document = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor(OCI_CONFIG, config),
        "layers": [descriptor(OCI_LAYER, layer)],
    }
    response, _ = reg.put_manifest("team/app", "big", document, OCI_MANIFEST)
    assert response.status_code == 403
    assert error_code(response) == "DENIED"
    assert Project.objects.get(name="team").storage_used == used
    summary = reg.request("GET", "/api/v2.0/projects/team/summary").json()
    assert summary["quota"] == {"hard": {"storage": used + 10}, "used": {"storage": used}}
    # Deleting an image gives back what no other artifact uses; blobs uploaded and never
    # referenced stay counted until garbage collection (Harbor's rule).
    reg.request("DELETE", f"/v2/team/app/manifests/{small}")
    summary = reg.request("GET", "/api/v2.0/projects/team/summary").json()
    assert summary["quota"]["used"]["storage"] == len(layer) + len(config)


def test_push_into_a_missing_project_is_refused(registry_url, admin):
    admin_reg = Registry(registry_url, admin.username)
    response = admin_reg.request("POST", "/v2/nosuch/app/blobs/uploads/")
    assert response.status_code == 401
    assert response.json()["errors"][0]["message"] == "project nosuch not found"
    assert not Repository.objects.exists()


def test_name_and_route_errors(reg):
    invalid = reg.request("GET", "/v2/Team/App/tags/list")
    assert invalid.status_code == 400
    assert error_code(invalid) == "NAME_INVALID"
    single = reg.request("GET", "/v2/team/tags/list")
    assert error_code(single) == "NAME_INVALID"
    unsupported = reg.request("POST", "/v2/team/app/tags/list")
    assert unsupported.status_code == 405
    assert error_code(unsupported) == "UNSUPPORTED"
    unknown_upload = reg.request("GET", "/v2/team/app/blobs/uploads/not-a-uuid")
    assert unknown_upload.status_code == 404
    assert error_code(unknown_upload) == "BLOB_UPLOAD_UNKNOWN"
    nowhere = reg.request("GET", "/v2/team/app/elsewhere")
    assert nowhere.status_code == 404
    assert nowhere.headers["Content-Type"] == "application/json"
    # A name holding a line break matches no route's name either: still the OCI error body.
    broken = reg.request("GET", "/v2/team/app%0A/tags/list")
    assert broken.status_code == 404
    assert error_code(broken) == "NOT_FOUND"
    # Nor is a digest followed by a newline a digest (a `$` in its pattern would take it).
    digest = reg.request("HEAD", "/v2/team/app/blobs/sha256:" + "a" * 64 + "%0A")
    assert digest.status_code == 400


def test_other_projects_repositories_share_nothing(reg, registry_url, owner):
    other = ProjectFactory(owner=owner, name="other")
    digest = reg.push_image("team/app", "v1")
    assert reg.request("GET", f"/v2/{other.name}/app/manifests/{digest}").status_code == 404


@pytest.mark.parametrize("by", ["tag", "digest"])
def test_racing_deletes_of_one_manifest_succeed_once(reg, registry_url, owner, by):
    """Four clients deleting one tag (or one artifact) at once: one 202, the others
    MANIFEST_UNKNOWN, one audit record (the losers were 202s too by digest, each with its
    own record, and a 500 by tag when the tag went between the check and the delete)."""
    digest = reg.push_image("team/gone", "v1")
    reference = "v1" if by == "tag" else digest
    clients = [Registry(registry_url, owner.username) for _ in range(4)]
    for client in clients:
        client.request("GET", "/v2/")  # signed in and connected before the race

    def delete(client):
        return client.request("DELETE", f"/v2/team/gone/manifests/{reference}")

    statuses = run_together([functools.partial(delete, client) for client in clients])
    assert sorted(response.status_code for response in statuses) == [202, 404, 404, 404]
    assert {error_code(r) for r in statuses if r.status_code == 404} == {"MANIFEST_UNKNOWN"}
    kind = "tag" if by == "tag" else "artifact"
    assert AuditLog.objects.filter(operation="delete", resource_type=kind).count() == 1


def test_concurrent_pushes_of_one_image_and_tag(reg, registry_url, owner):
    """Two clients pushing the same image under the same tag at once: both succeed, once."""
    clients = [Registry(registry_url, owner.username) for _ in range(2)]
    results = run_together(
        [
            functools.partial(client.push_image, "team/race", "latest", layers=(b"same layer",))
            for client in clients
        ]
    )
    assert len(results) == 2 and results[0] == results[1]
    assert Artifact.objects.filter(repository__name="team/race").count() == 1
    assert Tag.objects.filter(repository__name="team/race").count() == 1
    assert Repository.objects.filter(name="team/race").count() == 1


def test_lists_take_a_constant_number_of_queries(reg, owner, admin, django_assert_max_num_queries):
    import base64

    from django.test import Client

    from tests.registry.factories import PASSWORD

    digest = reg.push_image("team/app", "t0")
    document = reg.request("GET", f"/v2/team/app/manifests/{digest}").json()
    for index in range(1, 12):
        reg.put_manifest("team/app", f"t{index}", document, OCI_MANIFEST)
        reg.push_image(f"team/repo{index}", "v1", layers=(b"l",))
    signature = {**document, "subject": descriptor(OCI_MANIFEST, json.dumps(document).encode())}
    for index in range(6):
        signature["annotations"] = {"n": str(index)}
        body = json.dumps(signature).encode()
        reg.put_manifest("team/app", sha256(body), signature, OCI_MANIFEST)

    def as_user(username):
        token = base64.b64encode(f"{username}:{PASSWORD}".encode()).decode()
        return {"HTTP_AUTHORIZATION": f"Basic {token}"}

    client = Client()
    client.get("/v2/team/app/tags/list", **as_user(owner.username))  # warms the password cache
    client.get("/v2/_catalog", **as_user(admin.username))
    for n in (2, 10):
        with django_assert_max_num_queries(9):
            tags = client.get(f"/v2/team/app/tags/list?n={n}", **as_user(owner.username))
        assert len(tags.json()["tags"]) == n
        with django_assert_max_num_queries(4):
            catalog = client.get(f"/v2/_catalog?n={n}", **as_user(admin.username))
        assert len(catalog.json()["repositories"]) == n
    with django_assert_max_num_queries(8):
        referrers = client.get(f"/v2/team/app/referrers/{digest}", **as_user(owner.username))
    assert len(referrers.json()["manifests"]) == 6


def test_a_tag_ending_in_a_newline_is_refused(reg):
    """A tag is [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127} and nothing else: a final newline (which
    a `$` in the pattern would let through) is not part of any tag."""
    reg.push_image("team/app", "v1")
    manifest = reg.request("GET", "/v2/team/app/manifests/v1", headers={"Accept": OCI_MANIFEST})
    pushed = reg.request(
        "PUT",
        "/v2/team/app/manifests/latest%0A",
        data=manifest.content,
        headers={"Content-Type": OCI_MANIFEST},
    )
    assert pushed.status_code == 400, pushed.text
    assert error_code(pushed) == "MANIFEST_INVALID"
    assert list(Tag.objects.values_list("name", flat=True)) == ["v1"]
    assert reg.request("GET", "/v2/team/app/manifests/latest%0A").status_code == 404
