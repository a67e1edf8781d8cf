"""The audit log through /api/v2.0/audit-logs and /projects/{name}/logs: what is recorded,
who reads which records, Harbor's q filter, sort and paging."""

from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.test import APIClient

from registry import configuration
from registry.models import AuditLog, Role
from tests.registry.conftest import basic, client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

AUDIT = "/api/v2.0/audit-logs"


def rows(response) -> list[tuple]:
    return [(r["operation"], r["resource_type"], r["resource"]) for r in response.json()]


def test_project_and_member_changes_are_recorded(alice_client, bob):
    assert alice_client.post("/api/v2.0/projects", {"project_name": "team"}).status_code == 201
    members = "/api/v2.0/projects/team/members"
    added = alice_client.post(
        members, {"role_id": 3, "member_user": {"username": "bob"}}, format="json"
    )
    member = added["Location"].rsplit("/", 1)[1]
    alice_client.put(f"{members}/{member}", {"role_id": 2}, format="json")
    alice_client.delete(f"{members}/{member}")
    alice_client.delete("/api/v2.0/projects/team")
    response = alice_client.get(AUDIT)
    assert response.status_code == 200
    # Newest first; the project's records stay after the project is gone, for the admin.
    assert rows(response) == []  # alice no longer admins any project
    admin = UserFactory(username="root", is_superuser=True)
    logs = client_for(admin).get(AUDIT)
    assert rows(logs) == [
        ("delete", "project", "team"),
        ("delete", "member", "bob"),
        ("update", "member", "bob"),
        ("create", "member", "bob"),
        ("create", "project", "team"),
    ]
    assert {r["username"] for r in logs.json()} == {"alice"}
    record = logs.json()[0]
    assert sorted(record) == ["id", "op_time", "operation", "resource", "resource_type", "username"]
    assert record["op_time"].endswith("Z")


@pytest.fixture
def team(alice):
    return ProjectFactory(name="team", owner=alice)


def log(project, operation="create", resource_type="artifact", resource="team/app:v1", **kw):
    return AuditLog.objects.create(
        project_id=project.pk if project else 0,
        operation=operation,
        resource_type=resource_type,
        resource=resource,
        username=kw.pop("username", "alice"),
        op_time=kw.pop("op_time", datetime.now(UTC)),
    )


@pytest.mark.parametrize(
    ("role", "status"),
    [
        (Role.PROJECT_ADMIN, 200),
        (Role.MAINTAINER, 403),
        (Role.DEVELOPER, 403),
        (Role.GUEST, 403),
        (Role.LIMITED_GUEST, 403),
        (None, 403),
    ],
)
def test_who_reads_a_projects_logs(team, role, status):
    log(team)
    user = UserFactory()
    if role:
        MemberFactory(project=team, user=user, role=role)
    response = client_for(user).get("/api/v2.0/projects/team/logs")
    assert response.status_code == status
    everything = client_for(user).get(AUDIT)
    assert everything.status_code == 200
    assert len(everything.json()) == (1 if status == 200 else 0)


def test_anonymous_and_admin(team, anon, admin_client):
    log(team)
    log(None, resource_type="robot", resource="robot$ops")
    assert anon.get("/api/v2.0/projects/team/logs").status_code == 401
    assert anon.get(AUDIT).status_code == 401
    assert admin_client.get(AUDIT)["X-Total-Count"] == "2"
    assert admin_client.get("/api/v2.0/projects/team/logs")["X-Total-Count"] == "1"
    assert admin_client.get("/api/v2.0/projects/nope/logs").status_code == 404


def test_a_project_admin_sees_only_their_projects(team, alice_client, bob):
    other = ProjectFactory(name="other", owner=bob)
    log(team, resource="team/app:v1")
    log(other, resource="other/app:v1")
    log(None, resource_type="robot", resource="robot$ops")
    assert rows(alice_client.get(AUDIT)) == [("create", "artifact", "team/app:v1")]
    assert alice_client.get("/api/v2.0/projects/other/logs").status_code == 403


def test_q_filter_sort_and_paging(team, alice_client, django_assert_max_num_queries):
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(15):
        log(
            team,
            operation="pull" if n % 3 else "delete",
            resource=f"team/app:v{n:02d}",
            username="ci" if n % 2 else "alice",
            op_time=start + timedelta(hours=n),
        )
    url = "/api/v2.0/projects/team/logs"
    alice_client.get(url)  # warms the Basic-auth cache
    with django_assert_max_num_queries(7):
        first = alice_client.get(url)
    assert first["X-Total-Count"] == "15" and len(first.json()) == 10
    assert first.json()[0]["resource"] == "team/app:v14"
    assert first["Link"] == f'<{url}?page=2&page_size=10>; rel="next"'
    with django_assert_max_num_queries(7):
        alice_client.get(url, {"page_size": 100})
    assert rows(alice_client.get(url, {"q": "operation=delete", "sort": "op_time"}))[:2] == [
        ("delete", "artifact", "team/app:v00"),
        ("delete", "artifact", "team/app:v03"),
    ]
    assert alice_client.get(url, {"q": "username=ci"})["X-Total-Count"] == "7"
    assert alice_client.get(url, {"q": "resource=~v1"})["X-Total-Count"] == "5"
    assert alice_client.get(url, {"q": "resource_type=tag"})["X-Total-Count"] == "0"
    window = alice_client.get(
        AUDIT, {"q": "op_time=[2026-01-01T02:00:00~2026-01-01T04:00:00]", "sort": "op_time"}
    )
    assert [r["resource"] for r in window.json()] == [
        "team/app:v02",
        "team/app:v03",
        "team/app:v04",
    ]
    assert alice_client.get(url, {"q": "operation"}).status_code == 400
    assert alice_client.get(url, {"page_size": 101}).status_code == 422


def test_audit_log_list_query_count_is_constant(team, admin_client, django_assert_max_num_queries):
    for n in range(100):
        log(team, resource=f"team/app:{n}")
    admin_client.get(AUDIT)
    for size in (10, 100):
        with django_assert_max_num_queries(5):
            response = admin_client.get(AUDIT, {"page_size": size})
        assert len(response.json()) == size


def test_disabled_event_types_and_skipping_the_database(alice_client, caplog):
    configuration.update({"disabled_audit_log_event_types": "create_project"})
    alice_client.post("/api/v2.0/projects", {"project_name": "quiet"})
    assert not AuditLog.objects.exists()
    configuration.update({"disabled_audit_log_event_types": "", "skip_audit_log_database": True})
    caplog.set_level("INFO", logger="registry.audit")
    alice_client.delete("/api/v2.0/projects/quiet")
    assert not AuditLog.objects.exists()
    assert "audit delete project quiet by alice" in caplog.text


def test_a_robot_reads_the_logs_it_was_granted(team, bob, admin_client):
    other = ProjectFactory(name="other", owner=bob)
    log(team, resource="team/app:v1")
    log(other, resource="other/app:v1")
    permissions = [
        {"kind": "project", "namespace": "team", "access": [{"resource": "log", "action": "list"}]}
    ]
    body = {"name": "auditor", "level": "project", "duration": 1, "permissions": permissions}
    created = admin_client.post("/api/v2.0/robots", body, format="json").json()
    robot = APIClient()
    robot.credentials(HTTP_AUTHORIZATION=basic(created["name"], created["secret"]))
    assert rows(robot.get("/api/v2.0/projects/team/logs"))[-1] == (
        "create",
        "artifact",
        "team/app:v1",
    )
    assert robot.get("/api/v2.0/projects/other/logs").status_code == 403
    resources = {r["resource"] for r in robot.get(AUDIT).json()}
    assert "other/app:v1" not in resources and "team/app:v1" in resources
