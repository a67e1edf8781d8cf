"""Robot accounts through /api/v2.0/robots: who may manage them, Harbor's validation and
error bodies, the secret shown once and stored hashed, and a robot signing in to the API."""

import logging
import time

import pytest
from django.contrib.auth.hashers import check_password

from registry import configuration
from registry.errors import NotFound
from registry.models import AuditLog, Robot, Role
from registry.services import robots
from tests.registry.conftest import basic, client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, push

pytestmark = pytest.mark.django_db

URL = "/api/v2.0/robots"


def project_robot(name="ci", project="team", access=(("repository", "pull"),), **extra):
    return {
        "name": name,
        "level": "project",
        "duration": 30,
        "permissions": [
            {
                "kind": "project",
                "namespace": project,
                "access": [{"resource": r, "action": a} for r, a in access],
            }
        ],
        **extra,
    }


def system_robot(name="ops", access=(("audit-log", "list"),), **extra):
    return {
        "name": name,
        "level": "system",
        "duration": -1,
        "permissions": [
            {
                "kind": "system",
                "namespace": "/",
                "access": [{"resource": r, "action": a} for r, a in access],
            }
        ],
        **extra,
    }


@pytest.fixture
def project(alice):
    return ProjectFactory(name="team", owner=alice)


def robot_client(created: dict):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic(created["name"], created["secret"]))
    return client


def errors(response) -> tuple[str, str]:
    error = response.json()["errors"][0]
    return error["code"], error["message"]


def test_project_admin_creates_a_robot_whose_secret_is_shown_once(alice_client, project):
    response = alice_client.post(URL, project_robot(description="pipeline"), format="json")
    assert response.status_code == 201
    body = response.json()
    assert sorted(body) == ["creation_time", "expires_at", "id", "name", "secret"]
    assert body["name"] == "robot$team+ci"
    assert response["Location"] == f"{URL}/{body['id']}"
    assert abs(body["expires_at"] - (time.time() + 30 * 86400)) < 60
    robot = Robot.objects.get(pk=body["id"])
    assert robot.name == "team+ci" and robot.project == project
    # Only a hash is stored, and no later answer carries the secret.
    assert body["secret"] not in robot.secret_hash
    assert check_password(body["secret"], robot.secret_hash)
    shown = alice_client.get(f"{URL}/{body['id']}").json()
    assert "secret" not in shown
    assert shown["name"] == "robot$team+ci"
    assert shown["level"] == "project" and shown["duration"] == 30
    assert shown["disable"] is False and shown["editable"] is True
    assert shown["creator_type"] == "local" and shown["description"] == "pipeline"
    assert shown["permissions"] == [
        {
            "access": [{"action": "pull", "resource": "repository"}],
            "kind": "project",
            "namespace": "team",
        }
    ]


def test_duration_defaults_to_robot_token_duration(admin_client, project):
    configuration.update({"robot_token_duration": 7})
    body = admin_client.post(URL, project_robot(duration=None), format="json").json()
    assert abs(body["expires_at"] - (time.time() + 7 * 86400)) < 60
    never = admin_client.post(URL, system_robot(), format="json").json()
    assert never["expires_at"] == -1 and never["name"] == "robot$ops"


def test_the_name_prefix_follows_the_configuration(admin_client, project):
    configuration.update({"robot_name_prefix": "bot_"})
    robot = project_robot(access=[("repository", "list")])
    body = admin_client.post(URL, robot, format="json").json()
    assert body["name"] == "bot_team+ci"
    assert robot_client(body).get("/api/v2.0/projects/team/repositories").status_code == 200


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "Bad+Name"}, "robot name is not in lower case or contains illegal characters"),
        ({"name": "ci\n"}, "robot name is not in lower case or contains illegal characters"),
        ({"name": "a" * 256}, "robot name should be at most 255 characters long"),
        ({"name": "a" * 251}, "robot name should be at most 255 characters long"),
        ({"level": "global"}, "bad request error level input: global"),
        ({"permissions": []}, "bad request empty permission"),
        (
            {"permissions": [{"kind": "project", "namespace": "team", "access": []}]},
            "bad request empty access",
        ),
        (
            {
                "permissions": [
                    {
                        "kind": "project",
                        "namespace": "team",
                        "access": [{"resource": "repository", "action": "fly"}],
                    }
                ]
            },
            "bad request permission: repository:fly",
        ),
        (
            {"permissions": [{"kind": "team", "namespace": "team", "access": [{}]}]},
            "bad request permission level: team",
        ),
        (
            {"permissions": [{"kind": "project", "namespace": "team", "access": [None]}]},
            "bad request empty access",
        ),
        ({"permissions": [None]}, "bad request empty permission"),
        (
            {"duration": -2},
            "bad request error duration input: -2, duration must be either -1(Never) or a "
            "positive integer",
        ),
    ],
)
def test_bad_requests_are_harbor_400s(admin_client, project, change, message):
    response = admin_client.post(URL, {**project_robot(), **change}, format="json")
    assert response.status_code == 400
    assert errors(response) == ("BAD_REQUEST", message)
    assert not Robot.objects.exists()


def test_schema_type_errors_are_422(admin_client, project):
    response = admin_client.post(URL, {**project_robot(), "duration": "long"}, format="json")
    assert response.status_code == 422
    assert errors(response)[0] == "UNPROCESSABLE_ENTITY"
    assert admin_client.post(URL, [], format="json").status_code == 422
    assert admin_client.patch(f"{URL}/1", "x", content_type="application/json").status_code == 422
    assert admin_client.get(f"{URL}/abc").status_code == 422


def test_duplicate_name_is_409_and_unknown_is_404(admin_client, project):
    assert admin_client.post(URL, project_robot(), format="json").status_code == 201
    duplicate = admin_client.post(URL, project_robot(), format="json")
    assert duplicate.status_code == 409
    assert errors(duplicate)[0] == "CONFLICT"
    # The same short name in another project is another robot.
    ProjectFactory(name="other", owner=UserFactory())
    assert admin_client.post(URL, project_robot(project="other"), format="json").status_code == 201
    missing = admin_client.get(f"{URL}/999999")
    assert missing.status_code == 404
    assert errors(missing) == ("NOT_FOUND", "robot 999999 not found")
    assert admin_client.delete(f"{URL}/999999").status_code == 404
    unknown_project = admin_client.post(URL, project_robot(project="nope"), format="json")
    assert unknown_project.status_code == 404


def test_who_may_manage_robots(project, alice, alice_client, bob, bob_client, anon):
    developer = UserFactory(username="dev")
    MemberFactory(project=project, user=developer, role=Role.DEVELOPER)
    dev_client = client_for(developer)
    assert anon.post(URL, project_robot(), format="json").status_code == 401
    assert dev_client.post(URL, project_robot(), format="json").status_code == 403
    assert bob_client.post(URL, project_robot(), format="json").status_code == 403
    # System robots are the admin's.
    assert alice_client.post(URL, system_robot(), format="json").status_code == 403
    created = alice_client.post(URL, project_robot(), format="json").json()
    detail = f"{URL}/{created['id']}"
    # Members read and list the project's robots; outsiders do not.
    assert dev_client.get(detail).status_code == 200
    listed = dev_client.get(URL, {"q": f"Level=project,ProjectID={project.pk}"})
    assert [r["name"] for r in listed.json()] == ["robot$team+ci"]
    assert bob_client.get(detail).status_code == 403
    assert bob_client.get(URL, {"q": f"Level=project,ProjectID={project.pk}"}).status_code == 403
    assert anon.get(detail).status_code == 401
    assert dev_client.delete(detail).status_code == 403
    assert dev_client.patch(detail, {}, format="json").status_code == 403
    assert bob_client.get(URL).status_code == 403  # the system robots
    assert alice_client.delete(detail).status_code == 200
    assert not Robot.objects.exists()


def test_list_levels_filters_and_paging(admin_client, project, django_assert_max_num_queries):
    for n in range(12):
        admin_client.post(URL, project_robot(name=f"r{n:02d}"), format="json")
    admin_client.post(URL, system_robot(), format="json")
    system = admin_client.get(URL)
    assert [r["name"] for r in system.json()] == ["robot$ops"]
    scope = f"Level=project,ProjectID={project.pk}"
    with django_assert_max_num_queries(6):
        first = admin_client.get(URL, {"q": scope})
    assert first["X-Total-Count"] == "12"
    assert len(first.json()) == 10
    assert 'rel="next"' in first["Link"]
    with django_assert_max_num_queries(6):
        everything = admin_client.get(URL, {"q": scope, "page_size": 100})
    assert len(everything.json()) == 12
    assert admin_client.get(URL, {"q": f"{scope},creation_time=x"}).json() == []
    fuzzy = admin_client.get(URL, {"q": f"{scope},name=~r1", "sort": "-name"})
    assert [r["name"] for r in fuzzy.json()] == ["robot$team+r11", "robot$team+r10"]
    assert admin_client.get(URL, {"q": "Level=project"}).status_code == 400
    assert admin_client.get(URL, {"q": "Level=other"}).status_code == 400
    assert admin_client.get(URL, {"q": "Level=project,ProjectID=x"}).status_code == 400


def test_update_disables_and_changes_permissions(alice_client, project):
    created = alice_client.post(URL, project_robot(), format="json").json()
    detail = f"{URL}/{created['id']}"
    robot = robot_client(created)
    assert robot.get("/api/v2.0/projects/team/repositories").status_code == 403
    shown = alice_client.get(detail).json()
    changed = {
        **shown,
        "disable": False,
        "permissions": [
            {
                "kind": "project",
                "namespace": "team",
                "access": [{"resource": "repository", "action": "list"}],
            }
        ],
    }
    assert alice_client.put(detail, changed, format="json").status_code == 200
    assert robot.get("/api/v2.0/projects/team/repositories").status_code == 200
    assert alice_client.put(detail, {**changed, "disable": True}, format="json").status_code == 200
    # Disabled: the credentials no longer sign in (private project: 401, not 403).
    assert robot.get("/api/v2.0/projects/team/repositories").status_code == 401
    renamed = alice_client.put(detail, {**changed, "name": "robot$team+x"}, format="json")
    assert errors(renamed) == ("BAD_REQUEST", "cannot update the level or name of robot")
    ProjectFactory(name="other", owner=UserFactory())
    moved = {**changed, "permissions": [{**changed["permissions"][0], "namespace": "other"}]}
    moved_answer = alice_client.put(detail, moved, format="json")
    assert errors(moved_answer) == ("BAD_REQUEST", "cannot update the project id of robot")


def test_refresh_secret(alice_client, project):
    created = alice_client.post(URL, project_robot(access=[("repository", "list")]), format="json")
    created = created.json()
    detail = f"{URL}/{created['id']}"
    refreshed = alice_client.patch(detail, {}, format="json")
    assert refreshed.status_code == 200
    new_secret = refreshed.json()["secret"]
    assert new_secret != created["secret"]
    assert robot_client(created).get("/api/v2.0/projects/team/repositories").status_code == 401
    renewed = {**created, "secret": new_secret}
    assert robot_client(renewed).get("/api/v2.0/projects/team/repositories").status_code == 200
    weak = alice_client.patch(detail, {"secret": "short"}, format="json")
    assert weak.status_code == 400
    assert "8-128" in errors(weak)[1]
    chosen = alice_client.patch(detail, {"secret": "Chosen-Secret-42"}, format="json")
    assert chosen.status_code == 200 and chosen.json() == {}
    mine = {**created, "secret": "Chosen-Secret-42"}
    assert robot_client(mine).get("/api/v2.0/projects/team/repositories").status_code == 200
    assert robot_client(renewed).get("/api/v2.0/projects/team/repositories").status_code == 401


def test_a_robot_is_limited_to_its_permissions_on_the_api(admin_client, project, alice):
    push(project, "app", tag="v1")
    ProjectFactory(name="other", owner=alice)
    created = admin_client.post(
        URL,
        project_robot(access=[("repository", "list"), ("artifact", "list"), ("artifact", "read")]),
        format="json",
    ).json()
    robot = robot_client(created)
    assert robot.get("/api/v2.0/projects/team/repositories").status_code == 200
    assert robot.get("/api/v2.0/projects/team/repositories/app/artifacts").status_code == 200
    # Not granted: deleting, the project's members, another project, admin endpoints.
    assert robot.delete("/api/v2.0/projects/team/repositories/app").status_code == 403
    assert robot.get("/api/v2.0/projects/team/members").status_code == 403
    assert robot.get("/api/v2.0/projects/other/repositories").status_code == 403
    assert robot.get("/api/v2.0/configurations").status_code == 403
    assert robot.get("/api/v2.0/users").status_code == 403
    assert robot.post(URL, project_robot(name="x"), format="json").status_code == 403
    assert (
        robot.post("/api/v2.0/projects", {"project_name": "mine"}, format="json").status_code == 403
    )
    listed = robot.get("/api/v2.0/projects").json()
    assert [p["name"] for p in listed] == ["team"]
    current = robot.get("/api/v2.0/users/current")
    assert current.status_code == 412
    assert errors(current) == (
        "PRECONDITION",
        "get current user not available for security context: robot",
    )


def test_an_expired_robot_is_refused(admin_client, project):
    created = admin_client.post(URL, project_robot(access=[("repository", "list")]), format="json")
    created = created.json()
    robot = robot_client(created)
    assert robot.get("/api/v2.0/projects/team/repositories").status_code == 200
    Robot.objects.filter(pk=created["id"]).update(expires_at=int(time.time()) - 1)
    assert robot.get("/api/v2.0/projects/team/repositories").status_code == 401


def test_robot_changes_are_audited_and_the_secret_never_logged(admin_client, project, caplog):
    caplog.set_level(logging.DEBUG)
    created = admin_client.post(URL, project_robot(), format="json").json()
    detail = f"{URL}/{created['id']}"
    secret = admin_client.patch(detail, {}, format="json").json()["secret"]
    admin_client.delete(detail)
    rows = list(
        AuditLog.objects.filter(resource_type="robot")
        .order_by("id")
        .values_list("operation", "resource", "username", "project_id")
    )
    assert rows == [
        ("create", "robot$team+ci", "admin", project.pk),
        ("update", "robot$team+ci", "admin", project.pk),
        ("delete", "robot$team+ci", "admin", project.pk),
    ]
    assert created["secret"] not in caplog.text and secret not in caplog.text


def test_a_deleted_project_takes_its_robots(admin_client, project):
    admin_client.post(URL, project_robot(), format="json")
    assert admin_client.delete("/api/v2.0/projects/team").status_code == 200
    assert not Robot.objects.exists()


def test_a_robot_creates_robots_only_within_its_own_permissions(admin_client, project):
    maker = robot_client(
        admin_client.post(
            URL,
            project_robot(name="maker", access=[("robot", "create"), ("repository", "pull")]),
            format="json",
        ).json()
    )
    narrower = maker.post(URL, project_robot(name="child"), format="json")
    assert narrower.status_code == 201
    child = Robot.objects.get(pk=narrower.json()["id"])
    assert child.creator_type == "robot"
    assert child.creator_ref == Robot.objects.get(name="team+maker").pk
    wider = maker.post(
        URL, project_robot(name="wider", access=[("repository", "push")]), format="json"
    )
    assert wider.status_code == 403
    assert "more restrictive than the creator robot's permissions" in errors(wider)[1]
    assert not Robot.objects.filter(name="team+wider").exists()


def test_guessing_a_robot_secret_is_throttled_even_on_a_right_guess(admin_client, project):
    created = admin_client.post(URL, project_robot(access=[("repository", "list")]), format="json")
    created = created.json()
    wrong = robot_client({**created, "secret": "Wrong-Secret-1"})
    statuses = [wrong.get("/api/v2.0/users/current").status_code for _ in range(11)]
    assert statuses == [401] * 10 + [429]
    right = robot_client(created).get("/api/v2.0/projects/team/repositories")
    assert right.status_code == 429
    assert errors(right)[0] == "TOO_MANY_REQUEST"


def test_an_update_racing_a_secret_refresh_or_a_delete_loses_neither(admin_client, project):
    """A PUT holding the robot it read before a secret refresh (or a delete) committed:
    the refreshed secret stays (a full save wrote back the old hash: the old secret worked
    again), and a deleted robot stays deleted (a full save inserted it again)."""
    body = admin_client.post(URL, project_robot(), format="json").json()
    robot = Robot.objects.get(pk=body["id"])
    stale = Robot.objects.get(pk=body["id"])
    robots.refresh_secret(robot, "Refreshed1secret")
    robots.update(stale, {**project_robot(), "name": body["name"], "description": "later"})
    robot.refresh_from_db()
    assert check_password("Refreshed1secret", robot.secret_hash)
    assert robot.description == "later"
    robots.delete(robot)
    with pytest.raises(NotFound):
        robots.update(stale, {**project_robot(), "name": body["name"]})
    with pytest.raises(NotFound):
        robots.delete(stale)
    with pytest.raises(NotFound):
        robots.refresh_secret(stale, None)
    assert not Robot.objects.exists()
