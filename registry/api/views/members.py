"""Project members: users or groups holding a role in a project."""

from django.db.models import Q
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.filters import Param, QueryFilters
from config.kept import kept, value
from registry import selectors
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import PAGING, optional
from registry.api.permissions import get_project
from registry.api.serializers.projects import (
    MEMBER,
    ProjectMemberSerializer,
    RoleRequestSerializer,
)
from registry.errors import NotFound
from registry.models import ProjectMember
from registry.services import audit, members


def record_member(request, project, operation: str, member: ProjectMember | None) -> None:
    """Audit a member change; a change to no member (Harbor answers 200) records nothing."""
    if member is None or member.project_id != project.pk:
        return
    name = member.user.username if member.user_id else member.group.group_name
    audit.record(project.pk, operation, "member", name, audit.username_of(request.user))


MEMBER_FILTERS = QueryFilters(
    {
        "entityname": Param(
            parse=optional,
            apply=lambda qs, name: qs.filter(Q(user__username=name) | Q(group__group_name=name)),
        ),
        **PAGING,
    }
)


class MemberListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listProjectMembers",
        parameters=[schema.IS_RESOURCE_NAME, *MEMBER_FILTERS.parameters],
        responses=schema.responses(MEMBER.serializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "member:list")
        params = request.query_params
        # Kept per process unless the request's own filter value is written into the SQL.
        key = None if "entityname" in params else ("members",)

        def build():
            queryset = selectors.project_members(value("project"))
            return MEMBER_FILTERS.filter(queryset, params).values(*MEMBER.columns)

        page = self.page(kept(key, build).bind(project=project.pk))
        if MEMBER_FILTERS.get(params, "entityname"):
            # Harbor filters the rows but its X-Total-Count stays the project's member count.
            self.paginator.total = selectors.project_members(project).count()
        return self.paginated([MEMBER.render(row) for row in page], plain=True)

    @extend_schema(
        operation_id="createProjectMember",
        parameters=[schema.IS_RESOURCE_NAME],
        request=ProjectMemberSerializer,
        responses=schema.responses(
            OpenApiResponse(description="created"), 400, 401, 403, 404, 409, 503, ok_status=201
        ),
    )
    def post(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "member:create")
        body = self.body(ProjectMemberSerializer)
        wanted_user = body.get("member_user") or {}
        user = members.member_user(wanted_user.get("user_id"), wanted_user.get("username"))
        wanted = body.get("member_group") or {}
        group = None
        if user is None:
            group = members.member_group(
                wanted.get("id"), wanted.get("ldap_group_dn"), wanted.get("group_name")
            )
        member = members.add_member(project, body.get("role_id") or 0, user=user, group=group)
        record_member(request, project, "create", member)
        return self.empty(201, f"{request.path.rstrip('/')}/{member.pk}")


class MemberDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getProjectMember",
        parameters=[schema.IS_RESOURCE_NAME],
        responses=schema.responses(MEMBER.serializer, 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id, mid):
        mid = int(mid)
        project = get_project(request, project_name_or_id, "member:read")
        member = selectors.project_members(project).filter(pk=mid).values(*MEMBER.columns).first()
        if member is None:
            raise NotFound(
                f"the project member is not found, project id {project.pk}, member id {mid}"
            )
        return Response(MEMBER.render(member))

    @extend_schema(
        operation_id="updateProjectMember",
        parameters=[schema.IS_RESOURCE_NAME],
        request=RoleRequestSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, project_name_or_id, mid):
        mid = int(mid)
        project = get_project(request, project_name_or_id, "member:update")
        body = self.body(RoleRequestSerializer)
        members.update_member_role(project, mid, body.get("role_id") or 0)
        record_member(request, project, "update", ProjectMember.objects.filter(pk=mid).first())
        return self.empty()

    @extend_schema(
        operation_id="deleteProjectMember",
        parameters=[schema.IS_RESOURCE_NAME],
        responses=schema.responses(None, 400, 401, 403),
    )
    def delete(self, request, project_name_or_id, mid):
        mid = int(mid)
        project = get_project(request, project_name_or_id, "member:delete")
        member = selectors.project_members(project).filter(pk=mid).first()
        members.remove_member(project, mid)
        record_member(request, project, "delete", member)
        return self.empty()
