# ruff: noqa: F811  (pytest fixtures imported from registry_support)
"""Robot accounts cannot outlast what granted them: a system robot's project permission is
bound to that project (its id, not its name), so a project created later under the same
name by someone else is out of its reach; and a robot made by a robot expires no later than
its maker."""

import time
from types import SimpleNamespace

import jwt
import requests
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from registry.models import Robot
from registry.services import robots
from tests.registry.factories import PASSWORD, UserFactory
from tests.security.registry_support import (  # noqa: F401
    Registry,
    admin,
    owner,
    project,
    registry_url,
)

PULL_PUSH = [
    {"resource": "repository", "action": "pull"},
    {"resource": "repository", "action": "push"},
    {"resource": "log", "action": "list"},
]


def api(registry_url, username, password=PASSWORD) -> requests.Session:
    session = Registry(registry_url, username, password).session
    session.base = registry_url + "/api/v2.0"
    return session


def token_actions(registry_url, username, password, scope) -> list:
    answer = requests.get(
        f"{registry_url}/service/token",
        params={"scope": scope},
        auth=(username, password),
        timeout=30,
    )
    assert answer.status_code == 200, answer.text

    claims = jwt.decode(answer.json()["token"], options={"verify_signature": False})
    return [action for grant in claims["access"] for action in grant["actions"]]


def test_system_robot_loses_a_deleted_project_and_never_reaches_its_namesake(
    registry_url, admin, owner, project
):
    boss = api(registry_url, "admin")
    created = boss.post(
        boss.base + "/robots",
        json={
            "name": "deployer",
            "level": "system",
            "duration": -1,
            "permissions": [{"kind": "project", "namespace": "team", "access": PULL_PUSH}],
        },
    )
    assert created.status_code == 201, created.text
    name, secret = created.json()["name"], created.json()["secret"]
    robot = Registry(registry_url, name, secret)
    # It works in the project it was granted, shown by name on the wire.
    scope = "repository:team/app:pull,push"
    assert sorted(token_actions(registry_url, name, secret, scope)) == ["pull", "push"]
    shown = boss.get(f"{boss.base}/robots/{created.json()['id']}").json()
    assert shown["permissions"][0]["namespace"] == "team"
    owner_api = api(registry_url, "owner")
    deleted = owner_api.delete(owner_api.base + "/projects/team")
    assert deleted.status_code == 200, deleted.text

    UserFactory(username="mallory")
    mallory = Registry(registry_url, "mallory")
    made = mallory.request("POST", "/api/v2.0/projects", json={"project_name": "team"})
    assert made.status_code == 201, made.text
    mallory.push_image("team/private", "v1")

    assert robot.request("GET", "/v2/team/private/manifests/v1").status_code in (401, 403, 404)
    started = robot.request("POST", "/v2/team/planted/blobs/uploads/")
    assert started.status_code in (401, 403, 404)
    scope = "repository:team/private:pull,push"
    assert token_actions(registry_url, name, secret, scope) == []
    assert robot.request("GET", "/api/v2.0/projects/team").status_code in (403, 404)
    listed = robot.request("GET", "/api/v2.0/projects").json()
    assert "team" not in [p["name"] for p in listed]
    logs = robot.request("GET", "/api/v2.0/audit-logs").json()
    assert logs == []
    # Harbor drops the permission of a deleted project.
    shown = boss.get(f"{boss.base}/robots/{created.json()['id']}").json()
    assert shown["permissions"] == []

    # A permission names a project that exists: Harbor answers 404 otherwise.
    ghost = boss.post(
        boss.base + "/robots",
        json={
            "name": "ghost",
            "level": "system",
            "permissions": [{"kind": "project", "namespace": "nowhere", "access": PULL_PUSH}],
        },
    )
    assert ghost.status_code == 404, ghost.text
    assert ghost.json()["errors"][0]["code"] == "NOT_FOUND"


def test_system_robot_list_keeps_constant_queries(
    registry_url, admin, project, django_assert_max_num_queries
):
    boss = api(registry_url, "admin")
    for n in range(5):
        body = {
            "name": f"r{n}",
            "level": "system",
            "permissions": [{"kind": "project", "namespace": "team", "access": PULL_PUSH}],
        }
        assert boss.post(boss.base + "/robots", json=body).status_code == 201
    with django_assert_max_num_queries(6):
        listed = boss.get(boss.base + "/robots")
    assert [p["permissions"][0]["namespace"] for p in listed.json()] == ["team"] * 5


def make_maker(registry_url, duration) -> tuple[str, str, dict]:
    owner_api = api(registry_url, "owner")
    created = owner_api.post(
        owner_api.base + "/robots",
        json={
            "name": f"maker{duration}".replace("-", "n"),
            "level": "project",
            "duration": duration,
            "permissions": [
                {
                    "kind": "project",
                    "namespace": "team",
                    "access": [
                        {"resource": "robot", "action": "create"},
                        {"resource": "repository", "action": "pull"},
                    ],
                }
            ],
        },
    )
    assert created.status_code == 201, created.text
    return created.json()["name"], created.json()["secret"], created.json()


def make_child(registry_url, maker, secret, name, duration):
    session = api(registry_url, maker, secret)
    return session.post(
        session.base + "/robots",
        json={
            "name": name,
            "level": "project",
            "duration": duration,
            "permissions": [
                {
                    "kind": "project",
                    "namespace": "team",
                    "access": [{"resource": "repository", "action": "pull"}],
                }
            ],
        },
    )


def test_robot_made_by_a_robot_expires_no_later_than_its_maker(
    registry_url, owner, project, monkeypatch
):
    maker, secret, made = make_maker(registry_url, 1)
    forever = make_child(registry_url, maker, secret, "child", -1)
    assert forever.status_code == 201, forever.text
    assert forever.json()["expires_at"] == made["expires_at"]
    longer = make_child(registry_url, maker, secret, "other", 30)
    assert longer.status_code == 201, longer.text
    assert longer.json()["expires_at"] == made["expires_at"]
    child = Registry(registry_url, forever.json()["name"], forever.json()["secret"])
    assert child.request("GET", "/v2/").status_code == 200
    # A later change of its duration keeps the cap.
    owner_api = api(registry_url, "owner")
    url = f"{owner_api.base}/robots/{longer.json()['id']}"
    shown = owner_api.get(url).json()
    changed = owner_api.put(url, json={**shown, "duration": -1})
    assert changed.status_code == 200, changed.text
    assert owner_api.get(url).json()["expires_at"] == made["expires_at"]

    # A day and a bit later (the live server runs in this process).
    later = time.time() + 2 * 86400
    monkeypatch.setattr(robots, "time", SimpleNamespace(time=lambda: later))
    assert Registry(registry_url, maker, secret).request("GET", "/v2/").status_code == 401
    assert child.request("GET", "/v2/").status_code == 401
    other = Registry(registry_url, longer.json()["name"], longer.json()["secret"])
    assert other.request("GET", "/v2/").status_code == 401


def test_a_maker_that_never_expires_imposes_no_cap(registry_url, owner, project):
    maker, secret, _ = make_maker(registry_url, -1)
    forever = make_child(registry_url, maker, secret, "child", -1)
    assert forever.status_code == 201, forever.text
    assert forever.json()["expires_at"] == -1


def test_migration_binds_existing_permissions_by_id(transactional_db, owner):
    """Robots stored before the binding: a project robot's permission is bound to its
    project, a system robot's to the project its namespace names, and one naming no
    project is dropped (it could otherwise reach a namesake created later)."""
    executor = MigrationExecutor(connection)
    executor.migrate([("registry", "0004_garbage_collection")])
    try:
        apps = executor.loader.project_state([("registry", "0004_garbage_collection")]).apps
        project = apps.get_model("registry", "Project").objects.create(
            name="team", owner_id=owner.pk
        )
        robot_model = apps.get_model("registry", "Robot")
        access = [{"resource": "repository", "action": "pull"}]

        def old(name, level, namespaces, project=None):
            permissions = [
                {"kind": "project", "namespace": n, "access": access} for n in namespaces
            ]
            return robot_model.objects.create(
                name=name,
                secret_hash="x",
                level=level,
                project=project,
                permissions=permissions,
                duration=-1,
                expires_at=-1,
            ).pk

        own = old("team+ci", "project", ["team"], project)
        system = old("ops", "system", ["team", "gone", "*"])
        executor = MigrationExecutor(connection)
        executor.migrate([("registry", "0005_robot_permissions_project_ids")])
        bound = {r.pk: r.permissions for r in Robot.objects.all()}
    finally:
        # Whatever happened: the next tests need the current schema.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes("registry"))

    assert bound[own] == [
        {"kind": "project", "namespace": "team", "project_id": project.pk, "access": access}
    ]
    assert [(p["namespace"], p.get("project_id")) for p in bound[system]] == [
        ("team", project.pk),
        ("*", None),
    ]
