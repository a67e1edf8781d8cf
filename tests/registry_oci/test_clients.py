"""Real clients against the live server: oras (PyPI) and skopeo (Debian package)."""

import gzip
import hashlib
import io
import json
import subprocess
import tarfile
from urllib.parse import urlparse

import oras.client
import pytest
import requests

from registry.distribution import pulls
from registry.models import Artifact, Repository, Role
from tests.registry.factories import PASSWORD, MemberFactory, UserFactory
from tests.registry_oci.conftest import tracked_session
from tests.services.debian import require


@pytest.fixture
def isolated_home(tmp_path, monkeypatch):
    """Clients read and write credentials and caches under HOME: keep them in the test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("DOCKER_CONFIG", str(home / "docker"))
    return home


@pytest.fixture
def host(registry_url) -> str:
    return urlparse(registry_url).netloc


def oras_client(host: str, username: str | None = None) -> oras.client.OrasClient:
    client = oras.client.OrasClient(hostname=host, insecure=True)
    tracked_session(client.session)
    if username:
        client.auth.set_basic_auth(username, PASSWORD)
    return client


@pytest.mark.both_storages
@pytest.mark.parametrize("chunked", [False, True], ids=["monolithic", "chunked"])
def test_oras_push_and_pull(chunked, host, project, owner, tmp_path, isolated_home, monkeypatch):
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    (workdir / "artifact.txt").write_bytes(b"hello from oras\n" * 1000)
    (workdir / "other.bin").write_bytes(bytes(range(256)) * 300)
    pushed = oras_client(host, owner.username).push(
        target=f"{host}/team/files:v1",
        files=["artifact.txt", "other.bin"],
        do_chunked=chunked,
        chunk_size=10_000,
    )
    assert pushed.status_code == 201

    outdir = tmp_path / "out"
    files = oras_client(host, owner.username).pull(
        target=f"{host}/team/files:v1", outdir=str(outdir)
    )
    assert sorted(p.rsplit("/", 1)[1] for p in files) == ["artifact.txt", "other.bin"]
    assert (outdir / "artifact.txt").read_bytes() == (workdir / "artifact.txt").read_bytes()
    assert (outdir / "other.bin").read_bytes() == (workdir / "other.bin").read_bytes()
    assert oras_client(host, owner.username).get_tags(f"{host}/team/files") == ["v1"]
    pulls.flush()  # recorded after the response (the pull never waits for the write)

    listed = requests.get(
        f"http://{host}/api/v2.0/projects/team/repositories/files/artifacts",
        auth=(owner.username, PASSWORD),
    ).json()
    assert [a["digest"] for a in listed] == [pushed.headers["Docker-Content-Digest"]]
    assert [t["name"] for t in listed[0]["tags"]] == ["v1"]
    assert listed[0]["pull_time"] != "0001-01-01T00:00:00.000Z"
    assert Repository.objects.get(name="team/files").pull_count == 1


def test_oras_anonymous_pull_from_public_project(
    host, public_project, owner, tmp_path, isolated_home, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "readme.md").write_text("public")
    oras_client(host, owner.username).push(target=f"{host}/pub/docs:latest", files=["readme.md"])
    files = oras_client(host).pull(target=f"{host}/pub/docs:latest", outdir=str(tmp_path / "out"))
    assert (tmp_path / "out" / "readme.md").read_text() == "public"
    assert len(files) == 1


def write_oci_layout(path, tag: str = "v1") -> str:
    """A one-layer linux image in an OCI image layout directory; its manifest digest."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        content = b"#!/bin/sh\necho hello\n"
        info = tarfile.TarInfo("hello.sh")
        info.size = len(content)
        info.mode = 0o755
        tar.addfile(info, io.BytesIO(content))
    layer_tar = raw.getvalue()
    layer = gzip.compress(layer_tar, mtime=0)
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "created": "2024-01-01T00:00:00Z",
            "author": "tests",
            "config": {"Cmd": ["/hello.sh"]},
            "rootfs": {
                "type": "layers",
                "diff_ids": ["sha256:" + hashlib.sha256(layer_tar).hexdigest()],
            },
        }
    ).encode()

    def put(data: bytes) -> str:
        hexpart = hashlib.sha256(data).hexdigest()
        (path / "blobs" / "sha256" / hexpart).write_bytes(data)
        return "sha256:" + hexpart

    (path / "blobs" / "sha256").mkdir(parents=True)
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": put(config),
                "size": len(config),
            },
            "layers": [
                {
                    "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                    "digest": put(layer),
                    "size": len(layer),
                }
            ],
        }
    ).encode()
    digest = put(manifest)
    (path / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    index = {
        "schemaVersion": 2,
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": digest,
                "size": len(manifest),
                "annotations": {"org.opencontainers.image.ref.name": tag},
            }
        ],
    }
    (path / "index.json").write_text(json.dumps(index))
    return digest


def skopeo(*args: str) -> subprocess.CompletedProcess:
    binary = require({"skopeo": ("skopeo", ())})["skopeo"]
    return subprocess.run(
        [binary, "--insecure-policy", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(("role", "deleted"), [(Role.MAINTAINER, True), (Role.DEVELOPER, False)])
def test_skopeo_deletes_as_a_maintainer(
    role, deleted, host, project, owner, tmp_path, isolated_home
):
    """skopeo asks the token service for `repository:<name>:*`; Harbor answers with every
    action the caller holds, so a maintainer (pull, push, delete) may delete: the token
    held nothing unless the caller was a project admin."""
    layout = tmp_path / "layout"
    write_oci_layout(layout)
    pushed = skopeo(
        "copy",
        "--dest-tls-verify=false",
        "--dest-creds",
        f"{owner.username}:{PASSWORD}",
        f"oci:{layout}:v1",
        f"docker://{host}/team/image:v1",
    )
    assert pushed.returncode == 0, pushed.stderr
    member = UserFactory()
    MemberFactory(project=project, user=member, role=role)
    removed = skopeo(
        "delete",
        "--tls-verify=false",
        "--creds",
        f"{member.username}:{PASSWORD}",
        f"docker://{host}/team/image:v1",
    )
    assert (removed.returncode == 0) is deleted, removed.stderr
    assert Artifact.objects.filter(repository__name="team/image").exists() is not deleted


@pytest.mark.both_storages
@pytest.mark.parametrize("fmt", ["oci", "v2s2"])
def test_skopeo_copies_an_image_in_and_out(fmt, host, project, owner, tmp_path, isolated_home):
    layout = tmp_path / "layout"
    write_oci_layout(layout)
    creds = f"{owner.username}:{PASSWORD}"
    copied = skopeo(
        "copy",
        "--dest-tls-verify=false",
        "--dest-creds",
        creds,
        "--format",
        fmt,
        f"oci:{layout}:v1",
        f"docker://{host}/team/image:v1",
    )
    assert copied.returncode == 0, copied.stderr
    expected = (
        "application/vnd.oci.image.manifest.v1+json"
        if fmt == "oci"
        else "application/vnd.docker.distribution.manifest.v2+json"
    )
    artifact = Artifact.objects.get(repository__name="team/image")
    assert artifact.manifest_media_type == expected
    assert artifact.type == "IMAGE"
    assert artifact.extra_attrs["architecture"] == "amd64"
    assert artifact.extra_attrs["config"] == {"Cmd": ["/hello.sh"]}

    inspected = skopeo(
        "inspect", "--tls-verify=false", "--creds", creds, f"docker://{host}/team/image:v1"
    )
    assert inspected.returncode == 0, inspected.stderr
    assert json.loads(inspected.stdout)["Digest"] == artifact.digest

    back = tmp_path / "back"
    pulled = skopeo(
        "copy",
        "--src-tls-verify=false",
        "--src-creds",
        creds,
        f"docker://{host}/team/image:v1",
        f"dir:{back}",
    )
    assert pulled.returncode == 0, pulled.stderr
    assert (
        hashlib.sha256((back / "manifest.json").read_bytes()).hexdigest()
        == artifact.digest.split(":")[1]
    )
