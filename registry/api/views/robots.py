"""Robot accounts (Harbor 2.2+): system robots are the admin's, project robots their
project admins'. The secret appears once, in the creation (or refresh) answer."""

from datetime import datetime

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.limits import INT64_MAX
from registry import access
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import Column, Exact, QuerySpec, listing, parse_q
from registry.api.permissions import deny, get_project, require_login
from registry.api.robot_serializers import (
    RobotCreatedSerializer,
    RobotCreateSerializer,
    RobotSecSerializer,
    RobotSerializer,
    RobotUpdateSerializer,
)
from registry.errors import BadRequest
from registry.models import Robot
from registry.services import audit, robot_permissions, robots

ROBOT_QUERY = QuerySpec(
    columns={
        "name": Column("name"),
        "description": Column("description"),
        "disabled": Column("disabled", bool),
        "creation_time": Column("creation_time", datetime),
        "expires_at": Column("expires_at", int),
        "id": Column("pk", int),
    },
    default_order=("name", "id"),
)
ROBOT_LISTING = listing(ROBOT_QUERY)


def require_robot_access(request, level: str, namespace, action: str):
    """Harbor's rule: system robots need the system's `robot:<action>` (the admin, or a
    robot granted it), project robots the project's. Returns the project, if any."""
    require_login(request)
    if level == Robot.Level.SYSTEM:
        robot = access.robot_of(request.user)
        allowed = access.is_sysadmin(request.user) or (
            robot is not None and robot.allows("system", "/", "robot", action)
        )
        if not allowed:
            raise deny(request)
        return None
    return get_project(request, str(namespace), f"robot:{action}")


def body(request) -> dict:
    data = request.data
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def list_scope(q: str | None) -> tuple[str, int | None]:
    """The level (and project id) `q` asks for: `Level=system` (the default) or
    `Level=project,ProjectID=<id>`."""
    terms = dict(parse_q(q))
    level_term = terms.get("level")
    if level_term is None:
        return Robot.Level.SYSTEM, None
    if not isinstance(level_term, Exact) or level_term.value not in robot_permissions.LEVELS:
        raise BadRequest("bad request error level input")
    if level_term.value == Robot.Level.SYSTEM:
        return Robot.Level.SYSTEM, None
    project_term = terms.get("project_id")
    if project_term is None:
        raise BadRequest("must with project ID when to query project robots")
    try:
        project_id = int(project_term.value) if isinstance(project_term, Exact) else 0
    except ValueError:
        project_id = 0
    if not 0 < project_id <= INT64_MAX:
        raise BadRequest("ProjectID must be a positive integer")
    return Robot.Level.PROJECT, project_id


class RobotListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="ListRobot",
        parameters=ROBOT_LISTING.parameters,
        responses=schema.responses(RobotSerializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request):
        require_login(request)
        level, project_id = list_scope(request.query_params.get("q"))
        project = require_robot_access(request, level, project_id, "list")
        rows = Robot.objects.filter(level=level, project=project)
        params = request.query_params.copy()
        # Level and ProjectID chose the rows above; the other keys filter them.
        params["q"] = ",".join(
            part
            for part in (params.get("q") or "").split(",")
            if part.split("=", 1)[0].lower() not in ("level", "projectid", "project_id")
        )
        return self.list_response(ROBOT_LISTING.filter(rows, params), RobotSerializer)

    @extend_schema(
        operation_id="CreateRobot",
        request=RobotCreateSerializer,
        responses=schema.responses(RobotCreatedSerializer, 400, 401, 403, 404, 409, ok_status=201),
    )
    def post(self, request):
        require_login(request)
        data = body(request)
        permissions = data.get("permissions")
        robots.check_name(data.get("name"))
        robots.check_settings(data.get("level"), permissions, data.get("duration"))
        level = data["level"]
        project = require_robot_access(request, level, robots.namespace_of(permissions), "create")
        robot, secret = robots.create(
            request.user,
            data["name"],
            level,
            permissions,
            project=project,
            description=data.get("description") or "",
            duration=data.get("duration"),
            disable=data.get("disable") or False,
        )
        record(request, robot, "create")
        created = RobotCreatedSerializer(
            {
                "id": robot.pk,
                "name": robots.full_name(robot),
                "secret": secret,
                "creation_time": robot.creation_time,
                "expires_at": robot.expires_at,
            }
        ).data
        response = Response(created, status=201)
        response["Location"] = f"{request.path.rstrip('/')}/{robot.pk}"
        return response


def record(request, robot: Robot, operation: str) -> None:
    name = robots.full_name(robot)
    audit.record(robot.project_id or 0, operation, "robot", name, audit.username_of(request.user))


class RobotDetailView(HarborViewMixin, APIView):
    def robot(self, request, robot_id: int, action: str) -> Robot:
        require_login(request)
        robot = robots.get(robot_id)
        require_robot_access(request, robot.level, robot.project_id, action)
        return robot

    @extend_schema(
        operation_id="GetRobotByID",
        responses=schema.responses(RobotSerializer, 401, 403, 404),
    )
    def get(self, request, robot_id):
        return Response(RobotSerializer(self.robot(request, robot_id, "read")).data)

    @extend_schema(
        operation_id="UpdateRobot",
        request=RobotUpdateSerializer,
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def put(self, request, robot_id):
        require_login(request)
        robot = robots.get(robot_id)
        data = body(request)
        robots.check_settings(data.get("level"), data.get("permissions"), data.get("duration"))
        require_robot_access(request, robot.level, robot.project_id, "update")
        robots.update(robot, data)
        record(request, robot, "update")
        return self.empty()

    @extend_schema(
        operation_id="RefreshSec",
        request=RobotSecSerializer,
        responses=schema.responses(RobotSecSerializer, 400, 401, 403, 404),
    )
    def patch(self, request, robot_id):
        robot = self.robot(request, robot_id, "update")
        shown = robots.refresh_secret(robot, body(request).get("secret"))
        record(request, robot, "update")
        return Response({"secret": shown} if shown else {})

    @extend_schema(
        operation_id="DeleteRobot",
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def delete(self, request, robot_id):
        robot = self.robot(request, robot_id, "delete")
        robots.delete(robot)
        record(request, robot, "delete")
        return self.empty()
