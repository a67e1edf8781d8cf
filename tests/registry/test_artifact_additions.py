"""An artifact's additions and accessories on Harbor's API: who may read them, and the
accessory list's paging and query count (over real pushes: registry_oci's
test_artifact_extras)."""

import gzip
import hashlib
import io
import json
import tarfile

import pytest

from registry.distribution import storage
from registry.distribution.models import Referrer
from registry.models import Blob, RepositoryBlob, Role
from registry.services import additions, chart_additions
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, push
from tests.registry.test_robots import project_robot, robot_client

pytestmark = pytest.mark.django_db

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
HISTORY = [{"created": "2024-01-02T03:04:05Z", "created_by": "RUN true"}]


def stored(data: bytes, repository: str = "app/web") -> dict:
    """A blob in storage, held by `repository` (as its upload there leaves it)."""
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    name = storage.save_bytes(digest, data)
    blob, _ = Blob.objects.update_or_create(
        digest=digest, defaults={"size": len(data), "object_name": name}
    )
    RepositoryBlob.objects.get_or_create(repository_name=repository, blob=blob)
    return {"mediaType": OCI_CONFIG, "digest": digest, "size": len(data)}


def image(project, repository: str, tag: str, **manifest_fields):
    """An image whose manifest and config are in storage, recorded as a push records it."""
    held_by = f"{project.name}/{repository}"
    config = stored(json.dumps({"os": "linux", "history": HISTORY}).encode(), held_by)
    manifest = json.dumps(
        {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config, "layers": []}
        | manifest_fields
    ).encode()
    descriptor = stored(manifest, held_by)
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
    # Accessories are not listed (Harbor); read alone, a signature has none of its own.
    assert set(by_digest) == {subject.digest}
    signed = f"{listing}/{signatures[0].digest}"
    assert alice_client.get(signed, {"with_accessory": "true"}).json()["accessories"] is None
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


# --- malformed and oversized blobs ----------------------------------------------------------

HELM_CONFIG = "application/vnd.cncf.helm.config.v1+json"
HELM_CHART = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"


def recorded(project, tag: str, config: bytes, config_type=OCI_CONFIG, layers=()):
    """An artifact whose config holds `config` as it is, and `layers` (stored bytes)."""
    config_descriptor = stored(config) | {"mediaType": config_type}
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": config_descriptor,
            "layers": [stored(layer) | {"mediaType": HELM_CHART} for layer in layers],
        }
    ).encode()
    digest = stored(manifest)["digest"]
    return push(project, "web", tag, digest=digest, size=len(manifest), media_type=config_type)


def chart_archive(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue())


def bad_request(response) -> str:
    assert response.status_code == 400, response.content
    [found] = response.json()["errors"]
    assert found["code"] == "BAD_REQUEST"
    return found["message"]


@pytest.mark.parametrize(
    "config",
    [
        b"not json",
        b"[]",
        json.dumps({"history": "all of it"}).encode(),
        json.dumps({"history": [{"created": "yesterday"}]}).encode(),
        json.dumps({"history": [{"created": "2024-02-30T00:00:00Z"}]}).encode(),
        json.dumps({"history": [{"created_by": 5}]}).encode(),
        json.dumps({"history": [{"empty_layer": "yes"}]}).encode(),
        json.dumps({"history": [7]}).encode(),
        b'{"history": [' * 5000 + b"]" * 5000,
    ],
    ids=["text", "array", "string", "time", "date", "number", "bool", "entry", "deep"],
)
def test_a_malformed_config_is_a_400(project, alice_client, config):
    artifact = recorded(project, "v1", config)
    message = bad_request(alice_client.get(BASE + "/additions/build_history"))
    assert message == f"the config of artifact {artifact.digest} cannot be read"


def test_a_lone_surrogate_in_the_history_is_go_s_replacement_character(project, alice_client):
    """JSON may escape half a UTF-16 pair ("\\ud800"), which no UTF-8 can hold: Go's decoder
    reads it as U+FFFD (this was a 500)."""
    recorded(project, "v1", b'{"history": [{"created_by": "RUN \\ud800 x\\udfff"}]}')
    response = alice_client.get(BASE + "/additions/build_history")
    assert response.status_code == 200
    assert response.content == '[{"created_by":"RUN \ufffd x\ufffd"}]'.encode()


def test_an_oversized_config_is_refused_not_read_whole(project, alice_client, monkeypatch):
    asked = []
    original = storage.read_bytes

    def spy(digest, limit=-1):
        asked.append(limit)
        return original(digest, limit)

    monkeypatch.setattr(storage, "read_bytes", spy)
    monkeypatch.setattr(additions, "MAX_CONFIG_BYTES", 1000)
    artifact = recorded(project, "v1", json.dumps({"history": [], "pad": "x" * 5000}).encode())
    message = bad_request(alice_client.get(BASE + "/additions/build_history"))
    assert message == f"the config of artifact {artifact.digest} cannot be read"
    # The manifest within its bound, then the config's first 1001 bytes only.
    assert asked[-1] == 1001


@pytest.mark.parametrize(
    "archive",
    [
        b"not gzip at all",
        gzip.compress(b"not a tar"),
        chart_archive({"demo/values.yaml": b"a: 1\n"}),  # no Chart.yaml
        chart_archive({"demo/Chart.yaml": b"apiVersion: v2\ndependencies: &a [*a]\n"}),
        chart_archive({"demo/Chart.yaml": b"apiVersion: v2\ndependencies: {x: 1}\n"}),
        chart_archive({"demo/Chart.yaml": b"apiVersion: v2\ndependencies: [{name: 5}]\n"}),
        chart_archive({"demo/Chart.yaml": b"apiVersion: v1\n", "demo/requirements.yaml": b"a: 1"}),
        chart_archive({"demo/Chart.yaml": b"[unclosed\n"}),
    ],
    ids=["gzip", "tar", "chart-yaml", "alias", "mapping", "name", "requirements", "yaml"],
)
def test_a_malformed_chart_is_a_400(project, alice_client, archive):
    chart = recorded(project, "v1", b"{}", HELM_CONFIG, layers=[archive])
    assert chart.type == "CHART"
    for name in ("dependencies", "values.yaml", "readme.md"):
        message = bad_request(alice_client.get(BASE + f"/additions/{name}"))
        assert message == f"the chart of artifact {chart.digest} cannot be read"


def test_a_chart_bomb_stops_at_the_decompression_bound(project, alice_client, monkeypatch):
    monkeypatch.setattr(chart_additions, "MAX_DECOMPRESSED_BYTES", 100_000)
    archive = chart_archive({"demo/Chart.yaml": b"apiVersion: v2\n", "demo/big": b"\0" * 10**6})
    assert len(archive) < 10_000
    recorded(project, "v1", b"{}", HELM_CONFIG, layers=[archive])
    bad_request(alice_client.get(BASE + "/additions/values.yaml"))
    monkeypatch.setattr(chart_additions, "MAX_DECOMPRESSED_BYTES", 2 * 10**6)
    assert alice_client.get(BASE + "/additions/values.yaml").status_code == 200


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME])
def test_a_tar_header_record_past_go_s_bound_is_refused(project, alice_client, kind):
    """A PAX header (or GNU long name) of 2 MiB: Go's archive/tar, Helm's reader, refuses
    one past 1 MiB; Python's tarfile parsed it record by record (100 MB of them, the
    decompressed bound, in some 200 KB of gzip: 15 s of CPU a read)."""
    records = b"10 ab=cde\n" * (2 * 1024 * 1024 // 10)
    special = tarfile.TarInfo("././@PaxHeader")
    special.type, special.size = kind, len(records)
    chart = b"apiVersion: v2\n"
    member = tarfile.TarInfo("demo/Chart.yaml")
    member.size = len(chart)
    raw = b"".join(
        [
            special.tobuf(format=tarfile.USTAR_FORMAT),
            records + b"\0" * (-len(records) % 512),
            member.tobuf(format=tarfile.USTAR_FORMAT),
            chart + b"\0" * (-len(chart) % 512),
            b"\0" * 1024,
        ]
    )
    chart = recorded(project, "v1", b"{}", HELM_CONFIG, layers=[gzip.compress(raw)])
    message = bad_request(alice_client.get(BASE + "/additions/values.yaml"))
    assert message == f"the chart of artifact {chart.digest} cannot be read"


@pytest.mark.parametrize("name", ["Chart.yaml", "requirements.yaml"])
def test_chart_metadata_past_its_bound_is_not_parsed(project, alice_client, monkeypatch, name):
    """PyYAML spends seconds on a few hundred KB of YAML (minutes on the 4 MB a file may
    hold): the metadata is refused past its bound instead, before it is parsed."""
    parsed = []
    original = chart_additions._yaml
    monkeypatch.setattr(chart_additions, "_yaml", lambda c: parsed.append(c) or original(c))
    heavy = b"x: [" + b"1," * 40_000 + b"1]\n"  # 80 KB
    files = {"demo/Chart.yaml": b"apiVersion: v1\nname: demo\n"}
    files[f"demo/{name}"] = files.get(f"demo/{name}", b"") + b"dependencies: []\n" + heavy
    chart = recorded(project, "v1", b"{}", HELM_CONFIG, layers=[chart_archive(files)])
    message = bad_request(alice_client.get(BASE + "/additions/dependencies"))
    assert message == f"the chart of artifact {chart.digest} cannot be read"
    assert parsed == []


@pytest.mark.parametrize(
    "files, dependencies",
    [
        ({"demo/Chart.yaml": b"apiVersion: v2\nname: demo\n"}, b"null"),
        ({"demo/Chart.yaml": b"name: demo\n"}, b"[]"),  # no apiVersion: Helm's v1
        (
            {
                "demo/Chart.yaml": b"apiVersion: v1\n",
                "demo/requirements.yaml": b"dependencies:\n- name: db\n  repository: '@x'\n",
            },
            b'[{"name":"db","repository":"@x"}]',
        ),
    ],
    ids=["v2-none", "v1-none", "v1-requirements"],
)
def test_chart_dependencies_as_harbor_encodes_them(project, alice_client, files, dependencies):
    recorded(project, "v1", b"{}", HELM_CONFIG, layers=[chart_archive(files)])
    assert alice_client.get(BASE + "/additions/dependencies").content == dependencies
    # A file the chart does not hold is an empty addition.
    readme = alice_client.get(BASE + "/additions/readme.md")
    assert readme.status_code == 200 and readme.content == b""
