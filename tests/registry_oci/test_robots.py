"""Robot accounts on the OCI distribution API, through real clients (oras, skopeo) and
raw HTTP: Basic on /v2/, /service/token scopes limited to the robot's permissions,
refusals outside its project and actions, expiry, and the audit records of push, pull and
delete."""

import time

import jwt
import oras.client
import pytest
import requests

from registry.distribution import pulls
from registry.models import AuditLog, Repository, Robot
from registry.services import robots
from tests.registry.factories import ProjectFactory
from tests.registry_oci.conftest import Registry, tracked_session
from tests.registry_oci.test_clients import skopeo, write_oci_layout


def make_robot(project, *access, name="ci", owner=None) -> tuple[str, str]:
    permissions = [
        {
            "kind": "project",
            "namespace": project.name,
            "access": [{"resource": r, "action": a} for r, a in access],
        }
    ]
    robot, secret = robots.create(owner, name, "project", permissions, project=project)
    return robots.full_name(robot), secret


PUSHER = (("repository", "pull"), ("repository", "push"))


@pytest.fixture
def host(registry_url) -> str:
    return registry_url.split("://", 1)[1]


@pytest.fixture
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    for name, value in {
        "HOME": home,
        "XDG_RUNTIME_DIR": home,
        "XDG_DATA_HOME": home / "data",
        "XDG_CONFIG_HOME": home / "config",
        "DOCKER_CONFIG": home / "docker",
    }.items():
        monkeypatch.setenv(name, str(value))
    return home


def oras_as(host: str, username: str, secret: str) -> oras.client.OrasClient:
    client = oras.client.OrasClient(hostname=host, insecure=True)
    tracked_session(client.session)
    client.auth.set_basic_auth(username, secret)
    return client


def test_oras_pushes_and_pulls_as_a_robot(host, project, tmp_path, isolated_home, monkeypatch):
    name, secret = make_robot(project, *PUSHER)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "build.txt").write_bytes(b"artifact built by CI\n" * 100)
    pushed = oras_as(host, name, secret).push(target=f"{host}/team/build:v1", files=["build.txt"])
    assert pushed.status_code == 201
    files = oras_as(host, name, secret).pull(
        target=f"{host}/team/build:v1", outdir=str(tmp_path / "out")
    )
    assert (tmp_path / "out" / "build.txt").read_bytes() == b"artifact built by CI\n" * 100
    assert len(files) == 1
    pulls.flush()  # recorded after the response (the pull never waits for the write)
    records = list(
        AuditLog.objects.order_by("op_time", "id").values_list(
            "username", "operation", "resource_type", "resource"
        )
    )
    assert records == [
        (name, "create", "artifact", "team/build:v1"),
        (name, "pull", "artifact", "team/build:v1"),
    ]


def test_oras_robot_is_refused_outside_its_project_and_actions(
    host, project, owner, tmp_path, isolated_home, monkeypatch
):
    ProjectFactory(name="other", owner=owner)
    puller, puller_secret = make_robot(project, ("repository", "pull"), name="reader")
    pusher, pusher_secret = make_robot(project, *PUSHER)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(Exception):  # noqa: B017  (oras raises its own or requests' errors)
        oras_as(host, pusher, pusher_secret).push(
            target=f"{host}/other/build:v1", files=["file.txt"]
        )
    with pytest.raises(Exception):  # noqa: B017
        oras_as(host, puller, puller_secret).push(
            target=f"{host}/team/build:v1", files=["file.txt"]
        )
    assert not AuditLog.objects.filter(operation="create").exists()
    assert not Repository.objects.exists()


def test_skopeo_copies_in_and_out_as_a_robot(host, project, owner, tmp_path, isolated_home):
    name, secret = make_robot(project, *PUSHER)
    layout = tmp_path / "layout"
    write_oci_layout(layout)
    creds = f"{name}:{secret}"
    copied = skopeo(
        "copy",
        "--dest-tls-verify=false",
        "--dest-creds",
        creds,
        f"oci:{layout}:v1",
        f"docker://{host}/team/image:v1",
    )
    assert copied.returncode == 0, copied.stderr
    pulled = skopeo(
        "copy",
        "--src-tls-verify=false",
        "--src-creds",
        creds,
        f"docker://{host}/team/image:v1",
        f"dir:{tmp_path / 'back'}",
    )
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "back" / "manifest.json").exists()
    # Outside its project: refused.
    ProjectFactory(name="other", owner=owner)
    refused = skopeo(
        "copy",
        "--dest-tls-verify=false",
        "--dest-creds",
        creds,
        f"oci:{layout}:v1",
        f"docker://{host}/other/image:v1",
    )
    assert refused.returncode != 0
    # Disabled: the credentials no longer sign in.
    Robot.objects.update(disabled=True)
    disabled = skopeo(
        "inspect", "--tls-verify=false", "--creds", creds, f"docker://{host}/team/image:v1"
    )
    assert disabled.returncode != 0
    assert "unauthorized" in disabled.stderr.lower() or "401" in disabled.stderr


def token_for(registry_url: str, username: str, secret: str, *scopes: str) -> requests.Response:
    return requests.get(
        f"{registry_url}/service/token",
        params=[("service", "harbor-registry"), *[("scope", s) for s in scopes]],
        auth=(username, secret),
    )


def test_token_scopes_are_limited_to_the_robots_permissions(registry_url, project, owner, reg):
    ProjectFactory(name="other", owner=owner)
    reg.push_image("team/app", "v1")
    name, secret = make_robot(project, ("repository", "pull"))
    answer = token_for(
        registry_url,
        name,
        secret,
        "repository:team/app:pull,push,delete",
        "repository:other/app:pull",
        "registry:catalog:*",
    )
    assert answer.status_code == 200
    claims = jwt.decode(answer.json()["token"], options={"verify_signature": False})
    assert claims["sub"] == name
    assert {(a["name"], tuple(a["actions"])) for a in claims["access"]} == {
        ("team/app", ("pull",)),
        ("other/app", ()),
        ("catalog", ()),
    }
    Robot.objects.update(expires_at=int(time.time()) - 1)
    assert token_for(registry_url, name, secret, "repository:team/app:pull").status_code == 401


def test_basic_on_v2_as_a_robot(registry_url, project, reg):
    digest = reg.push_image("team/app", "v1")
    name, secret = make_robot(project, ("repository", "pull"), ("artifact", "delete"))
    robot = Registry(registry_url, name, secret)
    assert robot.request("GET", "/v2/").status_code == 200
    assert robot.request("GET", "/v2/team/app/manifests/v1").status_code == 200
    started = robot.request("POST", "/v2/team/app/blobs/uploads/")
    assert started.status_code == 401
    assert started.headers["WWW-Authenticate"] == 'Basic realm="harbor"'
    assert robot.request("DELETE", f"/v2/team/app/manifests/{digest}").status_code == 202
    wrong = Registry(registry_url, name, "Wrong-Secret-1")
    assert wrong.request("GET", "/v2/team/app/tags/list").status_code == 401
    pulls.flush()
    records = list(
        AuditLog.objects.filter(username=name)
        .order_by("op_time", "id")
        .values_list("operation", "resource_type", "resource")
    )
    assert records == [
        ("pull", "artifact", "team/app:v1"),
        ("delete", "artifact", f"team/app@{digest}"),
    ]


def test_tag_changes_and_anonymous_pulls_are_recorded(registry_url, public_project, owner):
    reg = Registry(registry_url, owner.username)
    digest = reg.push_image("pub/app", "v1")
    anonymous = requests.get(
        f"{registry_url}/service/token", params={"scope": "repository:pub/app:pull"}
    ).json()["token"]
    pulled = requests.get(
        f"{registry_url}/v2/pub/app/manifests/v1",
        headers={
            "Accept": "application/vnd.oci.image.manifest.v1+json",
            "Authorization": f"Bearer {anonymous}",
        },
    )
    assert pulled.status_code == 200
    media_type = "application/vnd.oci.image.manifest.v1+json"
    retagged, same = reg.put_manifest("pub/app", "stable", pulled.json(), media_type)
    assert retagged.status_code == 201 and same == digest
    assert reg.request("DELETE", "/v2/pub/app/manifests/stable").status_code == 202
    pulls.flush()
    # A pull's record is written after its response, so in op_time order (as the API lists).
    records = list(
        AuditLog.objects.order_by("op_time", "id").values_list(
            "username", "operation", "resource_type", "resource"
        )
    )
    assert records == [
        ("owner", "create", "artifact", "pub/app:v1"),
        ("anonymous", "pull", "artifact", "pub/app:v1"),
        ("owner", "create", "tag", "pub/app:stable"),
        ("owner", "delete", "tag", "pub/app:stable"),
    ]
