"""What hangs off a pushed artifact on Harbor's API, over real pushes: tags made by the API
and pulled by /v2/, the additions its `addition_links` point at, its accessories."""

import asyncio
import json
from urllib.parse import urlparse

import oras.client
import oras.oci
import pytest
from harborapi import HarborAsyncClient
from harborapi.exceptions import NotFound

from registry.distribution import pulls
from registry.models import AuditLog, Tag
from tests.registry.factories import PASSWORD
from tests.registry.test_artifact_additions import chart_archive
from tests.registry_oci.conftest import (
    OCI_INDEX,
    OCI_MANIFEST,
    descriptor,
    referrer_document,
    sha256,
    tracked_session,
)
from tests.registry_oci.test_clients import isolated_home  # noqa: F401 (a fixture)

API = "/api/v2.0/projects/team/repositories/app/artifacts"
HISTORY = [
    {"created": "2024-03-18T05:32:51.436000000Z", "created_by": "/bin/sh -c apk add && x<y"},
    {"created": "2024-03-18T07:32:51+02:00", "empty_layer": True, "comment": "", "x": 1},
    {"Author": "me", "created": "2024-03-18T05:32:51.000000001+00:00"},
]


def error(response) -> tuple[int, str, str]:
    [found] = response.json()["errors"]
    return response.status_code, found["code"], found["message"]


def test_api_tag_is_pulled_by_v2_and_gone_when_deleted(reg):
    digest = reg.push_image("team/app", "v1")
    created = reg.request("POST", f"{API}/v1/tags", json={"name": "stable"})
    assert created.status_code == 201
    pulled = reg.request("GET", "/v2/team/app/manifests/stable", headers={"Accept": OCI_MANIFEST})
    assert pulled.status_code == 200 and pulled.headers["Docker-Content-Digest"] == digest
    assert reg.request("GET", "/v2/team/app/tags/list").json()["tags"] == ["stable", "v1"]
    # A pull still being recorded when its tag goes: the record finds no tag, nothing fails.
    assert reg.request("DELETE", f"{API}/{digest}/tags/stable").status_code == 200
    pulls.flush()
    assert reg.request("GET", "/v2/team/app/manifests/stable").status_code == 404
    assert reg.request("GET", "/v2/team/app/tags/list").json()["tags"] == ["v1"]
    assert list(Tag.objects.values_list("name", flat=True)) == ["v1"]
    logs = AuditLog.objects.filter(resource_type="tag").order_by("pk")
    assert [(log.operation, log.resource) for log in logs] == [
        ("create", "team/app:stable"),
        ("delete", "team/app:stable"),
    ]


def test_build_history_follows_the_addition_link(reg):
    reg.push_image("team/app", "v1", config={"os": "linux", "history": HISTORY})
    [artifact] = reg.request("GET", API).json()
    link = artifact["addition_links"]["build_history"]
    assert link == {
        "absolute": False,
        "href": f"{API}/{artifact['digest']}/additions/build_history",
    }
    response = reg.request("GET", link["href"])
    assert response.status_code == 200, response.content
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    # Go's image structs, encoded again: known fields only, times normalised, HTML escaped.
    assert response.content == (
        b'[{"created":"2024-03-18T05:32:51.436Z",'
        b'"created_by":"/bin/sh -c apk add \\u0026\\u0026 x\\u003cy"},'
        b'{"created":"2024-03-18T07:32:51+02:00","empty_layer":true},'
        b'{"created":"2024-03-18T05:32:51.000000001Z","author":"me"}]'
    )
    assert json.loads(response.content)[1]["empty_layer"] is True
    assert reg.request("GET", f"{API}/v1/additions/build_history").content == response.content
    # The schema's enum is checked first, as go-swagger does: its names are lower case.
    assert error(reg.request("GET", f"{API}/v1/additions/BUILD_HISTORY"))[:2] == (
        422,
        "UNPROCESSABLE_ENTITY",
    )


def test_additions_an_image_has_not(reg):
    reg.push_image("team/app", "v1", config={"os": "linux"})
    assert reg.request("GET", f"{API}/v1/additions/build_history").content == b"null"
    assert error(reg.request("GET", f"{API}/v1/additions/values.yaml")) == (
        400,
        "BAD_REQUEST",
        "addition VALUES.YAML isn't supported for IMAGE(manifest version 2)",
    )
    unknown = reg.request("GET", f"{API}/v1/additions/whatever")
    assert unknown.status_code == 422 and "addition in path" in error(unknown)[2]
    assert error(reg.request("GET", f"{API}/nope/additions/build_history"))[:2] == (
        404,
        "NOT_FOUND",
    )


def test_vulnerabilities_without_a_scanner(reg, project):
    reg.push_image("team/app", "v1")
    response = reg.request(
        "GET",
        f"{API}/v1/additions/vulnerabilities",
        headers={"X-Accept-Vulnerabilities": "application/vnd.security.vulnerability.report"},
    )
    assert error(response) == (
        404,
        "NOT_FOUND",
        f"no scanner registration configured for project: {project.pk}",
    )


def test_an_index_has_no_additions(reg):
    reg.push_image("team/app", "amd64")
    child_bytes = reg.request("GET", "/v2/team/app/manifests/amd64").content
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [descriptor(OCI_MANIFEST, child_bytes, platform={"os": "linux"})],
    }
    response, _ = reg.put_manifest("team/app", "multi", index, OCI_INDEX)
    assert response.status_code == 201
    record = reg.request("GET", f"{API}/multi").json()
    assert "addition_links" not in record
    assert error(reg.request("GET", f"{API}/multi/additions/build_history")) == (
        400,
        "BAD_REQUEST",
        "addition BUILD_HISTORY isn't supported",
    )


def _pushchart_archive(reg, tag: str, archive: bytes) -> None:
    config = json.dumps({"name": "demo", "version": "0.1.0"}).encode()
    reg.upload("team/app", config)
    reg.upload("team/app", archive)
    document = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor("application/vnd.cncf.helm.config.v1+json", config),
        "layers": [
            descriptor("application/vnd.cncf.helm.chart.content.v1.tar+gzip", archive),
        ],
    }
    response, _ = reg.put_manifest("team/app", tag, document, OCI_MANIFEST)
    assert response.status_code == 201, response.text


def test_chart_additions(reg):
    chart_yaml = (
        b"apiVersion: v2\nname: demo\nversion: 0.1.0\ndependencies:\n"
        b"- name: redis\n  version: 17.x\n  repository: https://charts.example\n"
        b"  condition: redis.enabled\n  tags: [cache]\n"
        b"- name: local\n  repository: ''\n  import-values: [a]\n  enabled: true\n"
    )
    _pushchart_archive(
        reg,
        "0.1.0",
        chart_archive(
            {
                "demo/Chart.yaml": chart_yaml,
                "demo/values.yaml": b"replicas: 2\n",
                "demo/README.md": b"# Demo & <more>\n",
                "demo/charts/redis/README.md": b"# not this one\n",
            }
        ),
    )
    [artifact] = reg.request("GET", API).json()
    assert artifact["type"] == "CHART"
    links = artifact["addition_links"]
    assert sorted(links) == ["dependencies", "readme.md", "values.yaml"]
    values = reg.request("GET", links["values.yaml"]["href"])
    assert values.content == b"replicas: 2\n"
    assert values.headers["Content-Type"] == "text/plain; charset=utf-8"
    readme = reg.request("GET", links["readme.md"]["href"])
    assert readme.content == b"# Demo & <more>\n"
    assert readme.headers["Content-Type"] == "text/markdown; charset=utf-8"
    dependencies = reg.request("GET", links["dependencies"]["href"])
    assert dependencies.headers["Content-Type"] == "application/json; charset=utf-8"
    assert dependencies.content == (
        b'[{"name":"redis","version":"17.x","repository":"https://charts.example",'
        b'"condition":"redis.enabled","tags":["cache"]},'
        b'{"name":"local","repository":"","enabled":true,"import-values":["a"]}]'
    )
    assert error(reg.request("GET", f"{API}/0.1.0/additions/build_history")) == (
        400,
        "BAD_REQUEST",
        "addition BUILD_HISTORY isn't supported for CHART",
    )


def test_accessories_pushed_with_a_subject(reg, registry_url, tmp_path, monkeypatch, isolated_home):  # noqa: F811
    subject_digest = reg.push_image("team/app", "v1")
    subject_bytes = reg.request("GET", "/v2/team/app/manifests/v1").content
    host = urlparse(registry_url).netloc
    client = oras.client.OrasClient(hostname=host, insecure=True)
    tracked_session(client.session)
    client.auth.set_basic_auth("owner", PASSWORD)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sig.json").write_text("{}")
    (tmp_path / "sbom.json").write_text('{"spdxVersion": "SPDX-2.3"}')
    subject = oras.oci.Subject(OCI_MANIFEST, subject_digest, len(subject_bytes))
    signed = client.push(
        target=f"{host}/team/app:{subject_digest.replace(':', '-')}.sig",
        files=["sig.json"],
        manifest_config="sig.json:application/vnd.dev.cosign.artifact.sig.v1+json",
        subject=subject,
    )
    assert signed.status_code == 201
    sbom = client.push(target=f"{host}/team/app:sbom", files=["sbom.json"], subject=subject)
    assert sbom.status_code == 201
    reg.push_image("team/app", "unrelated", layers=(b"other",))

    listed = reg.request("GET", f"{API}/v1/accessories")
    assert listed.status_code == 200 and listed.headers["X-Total-Count"] == "2"
    signature, attached = listed.json()
    assert signature["type"] == "signature.cosign"
    assert signature["icon"] == (
        "sha256:20401d5b3a0f6dbc607c8d732eb08471af4ae6b19811a4efce8c6a724aed2882"
    )
    assert signature["digest"] == signed.headers["Docker-Content-Digest"]
    assert signature["subject_artifact_digest"] == subject_digest
    assert signature["subject_artifact_repo"] == "team/app"
    assert attached["type"] == "subject.accessory" and attached["icon"] == ""
    signer = reg.request("GET", f"{API}/{signature['digest']}").json()
    assert signature["artifact_id"] == signer["id"] and signature["size"] == signer["size"]
    assert set(signature) == {
        "id",
        "artifact_id",
        "subject_artifact_id",
        "subject_artifact_digest",
        "subject_artifact_repo",
        "size",
        "digest",
        "type",
        "icon",
        "creation_time",
    }
    cosign = reg.request("GET", f"{API}/v1/accessories", params={"q": "type=signature.cosign"})
    assert [a["digest"] for a in cosign.json()] == [signature["digest"]]
    paged = reg.request("GET", f"{API}/{subject_digest}/accessories", params={"page_size": 1})
    assert paged.headers["X-Total-Count"] == "2" and 'rel="next"' in paged.headers["Link"]
    assert reg.request("GET", f"{API}/unrelated/accessories").json() == []
    # The accessory goes with its artifact.
    reg.request("DELETE", f"/v2/team/app/manifests/{signature['digest']}")
    assert reg.request("GET", f"{API}/v1/accessories").headers["X-Total-Count"] == "1"
    assert sha256(subject_bytes) == subject_digest


def test_harborapi_reads_build_history_accessories_and_no_report(reg, registry_url):
    history = [
        {"created": "2024-03-18T05:32:51.436Z", "created_by": "/bin/sh -c #(nop) ADD file"},
        {"created": "2024-03-18T05:33:00Z", "created_by": 'CMD ["sh"]', "empty_layer": True},
    ]
    subject = reg.push_image("team/app", "v1", config={"os": "linux", "history": history})
    subject_bytes = reg.request("GET", "/v2/team/app/manifests/v1").content
    referrer = referrer_document(
        reg, "team/app", "application/vnd.cncf.notary.signature", subject_bytes
    )
    body = json.dumps(referrer).encode()
    response, signature = reg.put_manifest("team/app", sha256(body), referrer, OCI_MANIFEST)
    assert response.status_code == 201
    client = HarborAsyncClient(url=registry_url + "/api/v2.0", username="owner", secret=PASSWORD)

    async def scenario():
        entries = await client.get_artifact_build_history("team", "app", "v1")
        assert [(e.created_by, e.empty_layer) for e in entries] == [
            ("/bin/sh -c #(nop) ADD file", False),
            ('CMD ["sh"]', True),
        ]
        [accessory] = await client.get_artifact_accessories("team", "app", subject)
        assert accessory.digest == signature and accessory.type == "signature.notation"
        assert accessory.subject_artifact_digest == subject
        with pytest.raises(NotFound):
            await client.get_artifact_vulnerability_reports("team", "app", "v1")

    asyncio.run(scenario())
