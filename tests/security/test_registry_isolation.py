# ruff: noqa: F811  (pytest fixtures imported from registry_support)
"""The registry's tenant-isolation matrix: every kind of caller (anonymous, another
project's user, each project role, system admin, robot accounts of the private project
with pull or pull+push permissions) against each class of operation (read,
write, delete, admin) on a private and a public project, through the real URLs of the
Harbor API (/api/v2.0/) and of the distribution API (/v2/, with Bearer tokens from the
token service as docker and oras get them); and an OCI client (oras) pushing and pulling.

Harbor's rules: members read; developers and up write (push); maintainers and up delete;
project admins administer (members, `*` on repositories); anyone reads a public project;
a robot holds exactly its permissions, in its own project only; nothing else reaches a
project from outside it.
"""

import base64
import json
from urllib.parse import urlparse

import oras.client
import pytest
import requests

from registry.models import Artifact, Project, Robot, Role
from registry.services import members, robots
from tests.registry.factories import PASSWORD, ProjectFactory, UserFactory
from tests.registry_oci.conftest import tracked_session
from tests.security.registry_support import (  # noqa: F401
    Registry,
    owner,
    registry_url,
    sha256,
)

ROLES = {
    "projectAdmin": Role.PROJECT_ADMIN,
    "maintainer": Role.MAINTAINER,
    "developer": Role.DEVELOPER,
    "guest": Role.GUEST,
    "limitedGuest": Role.LIMITED_GUEST,
}
READ = [("repository", "list"), ("repository", "pull"), ("artifact", "list"), ("artifact", "read")]
ROBOTS = {
    "robotPull": READ,
    "robotPush": [*READ, ("repository", "push"), ("repository", "update")],
}
CALLERS = ["anonymous", "outsider", *ROLES, "sysadmin", *ROBOTS]
MEMBERS = set(ROLES) | {"sysadmin"}
ALLOWED = {
    "read": MEMBERS,
    "write": {"projectAdmin", "maintainer", "developer", "sysadmin"},
    "delete": {"projectAdmin", "maintainer", "sysadmin"},
    "admin": {"projectAdmin", "sysadmin"},
}
# Robots of the private project: what their permissions grant, there only.
ROBOT_ALLOWED = {"robotPull": {"read"}, "robotPush": {"read", "write"}}
PROJECTS = {"private": "team", "public": "pub"}
CREDENTIALS: dict[str, tuple[str, str]] = {}


def allowed(caller: str, operation: str, visibility: str) -> bool:
    if visibility == "public" and operation == "read":
        return True
    if caller in ROBOTS:
        return visibility == "private" and operation in ROBOT_ALLOWED[caller]
    return caller in ALLOWED[operation]


def credentials(caller: str) -> tuple[str, str] | None:
    if caller == "anonymous":
        return None
    return CREDENTIALS.get(caller, (caller.lower(), PASSWORD))


@pytest.fixture
def world(registry_url, owner):
    """Both projects, one user per role in each, an outsider with a project of their own,
    and two images per project (one to delete through each API)."""
    for name, visibility in PROJECTS.items():
        project = ProjectFactory(owner=owner, name=visibility, public=name == "public")
        for role_name, role in ROLES.items():
            user = UserFactory(username=role_name.lower()) if name == "private" else None
            user = user or type(owner).objects.get(username=role_name.lower())
            if role != Role.PROJECT_ADMIN or user != owner:
                members.add_member(project, role, user=user)
    outsider = UserFactory(username="outsider")
    ProjectFactory(owner=outsider, name="elsewhere")
    UserFactory(username="sysadmin", is_superuser=True, is_staff=True)
    UserFactory(username="spare")
    team = Project.objects.get(name="team")
    for caller, access in ROBOTS.items():
        permissions = [
            {
                "kind": "project",
                "namespace": "team",
                "access": [{"resource": r, "action": a} for r, a in access],
            }
        ]
        robot, secret = robots.create(
            owner, caller.lower(), Robot.Level.PROJECT, permissions, project=team, duration=30
        )
        CREDENTIALS[caller] = (robots.full_name(robot), secret)
    pusher = Registry(registry_url, owner.username)
    images = {}
    for project in PROJECTS.values():
        images[project] = [
            pusher.push_image(f"{project}/app", tag, layers=(tag.encode() * 100,))
            for tag in ("v1", "v2")
        ]
    return images


def api(registry_url, caller: str) -> Registry:
    found = credentials(caller)
    if found is None:
        return Registry(registry_url)
    return Registry(registry_url, found[0], found[1])


def bearer(registry_url, caller: str, project: str, actions: str) -> tuple[dict, set]:
    """A token for `project/app` as the token service grants it, and the granted actions."""
    session = tracked_session(requests.Session())
    session.auth = credentials(caller)
    answer = session.get(
        f"{registry_url}/service/token",
        params={"service": "harbor-registry", "scope": f"repository:{project}/app:{actions}"},
    )
    assert answer.status_code == 200, answer.text
    token = answer.json()["token"]
    payload = json.loads(_b64(token.split(".")[1]))
    granted = {action for entry in payload["access"] for action in entry["actions"]}
    return {"Authorization": f"Bearer {token}"}, granted


def _b64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def outcome(response, allowed_status: int) -> bool:
    if response.status_code == allowed_status:
        return True
    assert response.status_code in (401, 403, 404), (response.status_code, response.text)
    return False


def run(operation, caller, project, registry_url, images) -> tuple[bool, bool]:
    """The operation through /api/v2.0/ then through /v2/: whether each was allowed."""
    client = api(registry_url, caller)
    base = f"/api/v2.0/projects/{project}/repositories/app"
    v2 = requests.Session()
    tracked_session(v2)
    if operation == "read":
        through_api = outcome(client.request("GET", f"{base}/artifacts"), 200)
        headers, _ = bearer(registry_url, caller, project, "pull")
        answer = v2.get(f"{registry_url}/v2/{project}/app/manifests/v1", headers=headers)
        return through_api, outcome(answer, 200)
    if operation == "write":
        through_api = outcome(client.request("PUT", base, json={"description": "mine"}), 200)
        headers, _ = bearer(registry_url, caller, project, "pull,push")
        answer = v2.post(f"{registry_url}/v2/{project}/app/blobs/uploads/", headers=headers)
        return through_api, outcome(answer, 202)
    if operation == "delete":
        first, second = images[project]
        through_api = outcome(client.request("DELETE", f"{base}/artifacts/{first}"), 200)
        headers, _ = bearer(registry_url, caller, project, "delete")
        answer = v2.delete(f"{registry_url}/v2/{project}/app/manifests/{second}", headers=headers)
        through_v2 = outcome(answer, 202)
        kept = Artifact.objects.filter(repository__name=f"{project}/app")
        assert kept.filter(digest=first).exists() != through_api
        assert kept.filter(digest=second).exists() != through_v2
        return through_api, through_v2
    member = {"role_id": Role.GUEST, "member_user": {"username": "spare"}}
    answer = client.request("POST", f"/api/v2.0/projects/{project}/members", json=member)
    _, granted = bearer(registry_url, caller, project, "*")
    # Asked for `*`, a token holds what the caller may do: `*` among it for admins only.
    return outcome(answer, 201), "*" in granted


@pytest.mark.parametrize("caller", CALLERS)
def test_isolation_matrix(caller, registry_url, world):
    """One caller's row of the matrix: each cell through both APIs (deletes run last)."""
    expected, actual = {}, {}
    for operation in ("read", "write", "admin", "delete"):
        for visibility, project in PROJECTS.items():
            cell = f"{operation}/{visibility}"
            allowed_here = allowed(caller, operation, visibility)
            expected[cell] = (allowed_here, allowed_here)
            actual[cell] = run(operation, caller, project, registry_url, world)
    assert actual == expected


def oras_client(registry_url, caller: str) -> tuple[oras.client.OrasClient, str]:
    host = urlparse(registry_url).netloc
    client = oras.client.OrasClient(hostname=host, insecure=True)
    tracked_session(client.session)
    found = credentials(caller)
    if found is not None:
        client.auth.set_basic_auth(*found)
    return client, host


@pytest.mark.parametrize("caller", CALLERS)
def test_oras_push_and_pull_follow_the_matrix(caller, registry_url, world, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "note.txt").write_text(f"pushed by {caller}\n")
    client, host = oras_client(registry_url, caller)
    try:
        client.push(target=f"{host}/team/files:{caller.lower()}", files=["note.txt"])
        pushed = True
    except Exception:
        pushed = False
    assert pushed == allowed(caller, "write", "private")
    assert Artifact.objects.filter(tags__name=caller.lower()).exists() == pushed
    try:
        client.pull(target=f"{host}/team/app:v1", outdir=str(tmp_path / "out"))
        pulled = True
    except Exception:
        pulled = False
    assert pulled == allowed(caller, "read", "private")
