"""Robot accounts and the audit log driven by harborapi against a live server."""

import pytest
from harborapi.exceptions import BadRequest, Forbidden, NotFound, Unauthorized
from harborapi.models import Access, ProjectReq, Robot, RobotCreate, RobotPermission

from tests.registry.conftest import run
from tests.registry.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def pusher(project: str, name: str = "ci") -> RobotCreate:
    return RobotCreate(
        name=name,
        level="project",
        duration=-1,
        description="CI pipeline",
        permissions=[
            RobotPermission(
                kind="project",
                namespace=project,
                access=[
                    Access(resource="repository", action="push"),
                    Access(resource="repository", action="pull"),
                    Access(resource="repository", action="list"),
                ],
            )
        ],
    )


def test_robot_lifecycle_with_harborapi(harbor):
    admin = harbor()

    async def scenario():
        await admin.create_project(ProjectReq(project_name="team"))
        project = await admin.get_project("team")
        created = await admin.create_robot(pusher("team"))
        assert created.name == "robot$team+ci" and created.secret
        assert created.expires_at == -1
        robots = await admin.get_robots(query=f"Level=project,ProjectID={project.project_id}")
        assert [r.name for r in robots] == ["robot$team+ci"]
        robot = await admin.get_robot(created.id)
        assert robot.level == "project" and robot.secret is None
        assert robot.permissions[0].access[0].resource == "repository"

        as_robot = harbor(created.name, created.secret)
        assert await as_robot.get_repositories("team") == []
        with pytest.raises(Forbidden):
            await as_robot.get_project_members("team")

        refreshed = await admin.refresh_robot_secret(created.id, "")
        assert refreshed.secret and refreshed.secret != created.secret
        with pytest.raises(Unauthorized):
            await as_robot.get_project_members("team")
        renewed = harbor(created.name, refreshed.secret)
        assert await renewed.get_repositories("team") == []
        with pytest.raises(BadRequest):
            await admin.refresh_robot_secret(created.id, "weak")

        update = Robot(**{**robot.model_dump(), "disable": True})
        await admin.update_robot(created.id, update)
        assert (await admin.get_robot(created.id)).disable is True

        await admin.delete_robot(created.id)
        with pytest.raises(NotFound):
            await admin.get_robot(created.id)

        logs = await admin.get_audit_logs(query="resource_type=robot", sort="op_time")
        assert [(log.operation, log.resource) for log in logs] == [
            ("create", "robot$team+ci"),
            ("update", "robot$team+ci"),
            ("update", "robot$team+ci"),
            ("delete", "robot$team+ci"),
        ]
        project_logs = await admin.get_project_logs("team", query="resource_type=project")
        assert [(log.operation, log.username) for log in project_logs] == [("create", "admin")]

    run(scenario())


def test_audit_log_visibility_with_harborapi(harbor):
    UserFactory(username="dev")

    async def scenario():
        admin = harbor()
        await admin.create_project(ProjectReq(project_name="team"))
        await admin.add_project_member_user("team", "dev", 2)
        dev = harbor("dev")
        assert await dev.get_audit_logs() == []
        with pytest.raises(Forbidden):
            await dev.get_project_logs("team")
        everything = await admin.get_audit_logs(limit=None)
        assert {(log.operation, log.resource_type) for log in everything} == {
            ("create", "project"),
            ("create", "member"),
        }

    run(scenario())
