"""Project members: users or groups holding a role in a project."""

from django.contrib.auth import get_user_model
from django.db.models import F, Q
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.permissions import get_project
from registry.api.serializers import (
    ProjectMemberEntitySerializer,
    ProjectMemberSerializer,
    RoleRequestSerializer,
)
from registry.errors import BadRequest, NotFound
from registry.ldap import onboarding
from registry.ldap.client import ldap_mode
from registry.models import ProjectMember, UserGroup
from registry.services import audit, members

User = get_user_model()


def member_queryset(project):
    return (
        ProjectMember.objects.filter(project=project)
        .select_related("user", "group")
        # Users first, then groups, on both databases (SQLite sorts NULLs first).
        .order_by(F("user__username").asc(nulls_last=True), "group__group_name", "pk")
    )


def resolve_user(member_user: dict):
    if member_user.get("user_id"):
        user_id = member_user["user_id"]
        user = User.objects.filter(pk=user_id).first()
        if user is None:
            raise BadRequest(f"Failed to get user {user_id}: user {user_id} not found")
        return user
    username = member_user.get("username")
    if username:
        # A known user, or under ldap_auth one onboarded from the directory.
        return onboarding.user_for_member(username)
    return None


def resolve_group(member_group: dict):
    if member_group.get("id"):
        group = UserGroup.objects.filter(pk=member_group["id"]).first()
        if group is None:
            raise BadRequest(f"Failed to get user group {member_group['id']}: not found")
        return group
    dn = member_group.get("ldap_group_dn")
    name = member_group.get("group_name")
    if dn and ldap_mode():
        # A known LDAP group, or one onboarded from the directory.
        return onboarding.group_for_member(dn)
    if dn or name:
        groups = (
            UserGroup.objects.filter(ldap_group_dn=dn)
            if dn
            else UserGroup.objects.filter(group_name=name)
        )
        group = groups.first()
        if group is None:
            raise NotFound(f"resource not found: group name:{name or ''}, group DN:{dn or ''}")
        return group
    return None


def record_member(request, project, operation: str, member: ProjectMember | None) -> None:
    """Audit a member change; a change to no member (Harbor answers 200) records nothing."""
    if member is None or member.project_id != project.pk:
        return
    name = member.user.username if member.user_id else member.group.group_name
    audit.record(project.pk, operation, "member", name, audit.username_of(request.user))


class MemberListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listProjectMembers",
        parameters=[schema.IS_RESOURCE_NAME, *schema.PAGE, schema.query("entityname")],
        responses=schema.responses(ProjectMemberEntitySerializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "member:list")
        queryset = member_queryset(project)
        entityname = request.query_params.get("entityname")
        rows = (
            queryset.filter(Q(user__username=entityname) | Q(group__group_name=entityname))
            if entityname
            else queryset
        )
        page = self.paginator.paginate_queryset(rows, request, view=self)
        if entityname:
            # Harbor filters the rows but its X-Total-Count stays the project's member count.
            self.paginator.total = queryset.count()
        data = ProjectMemberEntitySerializer(page, many=True).data
        return self.paginator.get_paginated_response(data)

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
        user = resolve_user(body.get("member_user") or {})
        group = None if user else resolve_group(body.get("member_group") or {})
        member = members.add_member(project, body.get("role_id") or 0, user=user, group=group)
        record_member(request, project, "create", member)
        return self.empty(201, f"{request.path.rstrip('/')}/{member.pk}")


class MemberDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getProjectMember",
        parameters=[schema.IS_RESOURCE_NAME],
        responses=schema.responses(ProjectMemberEntitySerializer, 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id, mid):
        mid = int(mid)
        project = get_project(request, project_name_or_id, "member:read")
        member = member_queryset(project).filter(pk=mid).first()
        if member is None:
            raise NotFound(
                f"the project member is not found, project id {project.pk}, member id {mid}"
            )
        return Response(ProjectMemberEntitySerializer(member).data)

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
        member = member_queryset(project).filter(pk=mid).first()
        members.remove_member(project, mid)
        record_member(request, project, "delete", member)
        return self.empty()
