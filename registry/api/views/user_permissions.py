"""GET /users/current/permissions: the caller's policies in a project scope, as Harbor.

`scope` names a namespace: `/project/{id}` (anything after the id is allowed, as Harbor's
parser allows it). Every policy of that project the caller holds is listed, resources in
full (`/project/1/repository`) or, with `relative=true`, relative to the scope
(`repository`, `.` for the scope itself); a policy outside the scope is left out. Any
other scope, or none, lists nothing. Harbor v2.0 knows no system namespace here.
"""

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.limits import INT64_MAX, INT64_MIN, go_int
from registry import access
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.permissions import require_login
from registry.api.serializers.users import PermissionSerializer
from registry.models import Project

PROJECT_SCOPE = re.compile(r"^/project/([^/]*)/?")


def project_id_of(scope: str) -> int | None:
    """The project id a scope names, or None when it names no project namespace."""
    match = PROJECT_SCOPE.match(scope)
    project_id = go_int(match[1]) if match else None
    if project_id is None:
        return None
    return project_id if INT64_MIN <= project_id <= INT64_MAX else None


def relative_to(resource: str, scope: str) -> str | None:
    if not resource.startswith(scope):
        return None
    return resource.removeprefix(scope).removeprefix("/") or "."


class CurrentUserPermissionsView(HarborViewMixin, APIView):
    pagination_class = None  # Harbor's operation has no paging parameters

    @extend_schema(
        operation_id="getCurrentUserPermissions",
        parameters=[schema.query("scope"), schema.query("relative", OpenApiTypes.BOOL)],
        responses=schema.responses(PermissionSerializer(many=True), 401),
    )
    def get(self, request):
        require_login(request)
        scope = request.query_params.get("scope", "")
        relative = self.query_bool("relative", False)
        project_id = project_id_of(scope)
        if project_id is None:
            return Response([])
        project = (
            Project.objects.annotate(is_public=access.public_exists()).filter(pk=project_id).first()
        )
        granted = access.granted_actions(request.user, project)
        permissions = []
        for resource, action, key in access.POLICIES:
            if key not in granted:
                continue
            full = f"/project/{project_id}/{resource}".rstrip("/")
            shown = relative_to(full, scope) if relative else full
            if shown is not None:
                permissions.append({"action": action, "resource": shown})
        return Response(PermissionSerializer(permissions, many=True).data)
