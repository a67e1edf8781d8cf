"""Projects: list, existence check, create, read, update, delete, deletable, summary."""

from datetime import datetime

from django.db.models import F
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.filters import Param
from config.kept import kept
from registry import access, selectors
from registry.api import schema
from registry.api.base import HarborViewMixin, harbor_bool
from registry.api.filters import Column, QuerySpec, listing, optional
from registry.api.permissions import get_project, require_login
from registry.api.serializers.fields import harbor_times
from registry.api.serializers.projects import (
    PROJECT,
    ProjectDeletableSerializer,
    ProjectReqSerializer,
    ProjectSummarySerializer,
    ProjectUpdateSerializer,
    project_records,
)
from registry.services import audit, projects


def _public_filter(queryset, term):
    wanted = str(getattr(term, "value", "")).lower() in ("true", "1")
    return queryset.filter(is_public=wanted)


def _owner_filter(queryset, term):
    return queryset.filter(owner__username=str(getattr(term, "value", "")))


PROJECT_QUERY = QuerySpec(
    columns={
        "project_id": Column("pk", int),
        "owner_id": Column("owner_id", int),
        "name": Column("name"),
        "creation_time": Column("creation_time", datetime),
        "update_time": Column("update_time", datetime),
        "registry_id": Column("registry_id", int),
    },
    default_order=("name", "pk"),
    special={"public": _public_filter, "owner": _owner_filter},
)
# name, public and owner are selectors.project_list's filters; q and sort follow.
PROJECT_LISTING = listing(
    PROJECT_QUERY,
    name=Param(parse=optional, default=""),
    public=Param(OpenApiTypes.BOOL, harbor_bool),
    owner=Param(parse=optional, default=""),
)
PROJECT_FILTERS = ("name", "public", "owner")


def project_rows(queryset, with_owner: bool):
    """Rows of the projects of `queryset` (from selectors.project_list) as PROJECT reads."""
    owner = {"owner_name": F("owner__username")} if with_owner else {}
    times = harbor_times("creation_time", "update_time")
    return queryset.annotate(**times).values(*PROJECT.columns, **owner)


class ProjectListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listProjects",
        parameters=[*PROJECT_LISTING.parameters, schema.query("with_detail", OpenApiTypes.BOOL)],
        responses=schema.responses(PROJECT.serializer(many=True), 400, 401),
    )
    def get(self, request):
        with_detail = self.query_bool("with_detail", True)
        params = request.query_params
        filters = PROJECT_LISTING.parse(params, PROJECT_FILTERS)
        kind, values = access.visibility(request.user)
        filtered = any(key in params for key in (*PROJECT_FILTERS, "q", "sort"))
        # Kept per process unless the request's own filters are written into the SQL.
        key = None if filtered or kind is None else ("projects", kind, with_detail)

        def build():
            queryset = selectors.project_list(request.user, marked=True, **filters)
            return project_rows(PROJECT_LISTING.filter(queryset, params), with_owner=with_detail)

        rows = kept(key, build).bind(**values)
        return self.paginated(
            project_records(self.page(rows), request.user, with_detail), plain=True
        )

    @extend_schema(
        operation_id="headProject",
        parameters=[schema.query("project_name", required=True)],
        responses=schema.responses(None, 400, 401, 404),
    )
    def head(self, request):
        require_login(request)
        selectors.require_project_named(self.query_required("project_name"))
        return self.empty()

    @extend_schema(
        operation_id="createProject",
        request=ProjectReqSerializer,
        parameters=[schema.header("X-Resource-Name-In-Location", OpenApiTypes.BOOL)],
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        require_login(request)
        body = self.body(ProjectReqSerializer)
        project = projects.create_project(
            request.user,
            body.get("project_name") or "",
            metadata=body.get("metadata"),
            public=body.get("public"),
            storage_limit=body.get("storage_limit"),
            cve_allowlist=body.get("cve_allowlist"),
            as_admin=access.is_sysadmin(request.user),
        )
        audit.record(project.pk, "create", "project", project.name, audit.username_of(request.user))
        by_name = request.headers.get("X-Resource-Name-In-Location", "").lower() == "true"
        base = request.path.rstrip("/")
        return self.empty(201, f"{base}/{project.name if by_name else project.pk}")


PROJECT_PATH = [schema.IS_RESOURCE_NAME]


class ProjectDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getProject",
        parameters=PROJECT_PATH,
        responses=schema.responses(PROJECT.serializer, 401, 403, 404),
    )
    def get(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "project:read")
        rows = project_rows(selectors.project_list(request.user).filter(pk=project.pk), True)
        return Response(project_records(list(rows), request.user, detailed=True)[0])

    @extend_schema(
        operation_id="updateProject",
        parameters=PROJECT_PATH,
        request=ProjectUpdateSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "project:update")
        body = self.body(ProjectUpdateSerializer)
        projects.update_project(project, body.get("metadata"), body.get("cve_allowlist"))
        return self.empty()

    @extend_schema(
        operation_id="deleteProject",
        parameters=PROJECT_PATH,
        responses=schema.responses(None, 400, 401, 403, 404, 412),
    )
    def delete(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "project:delete")
        projects.delete_project(project)
        audit.record(project.pk, "delete", "project", project.name, audit.username_of(request.user))
        return self.empty()


class ProjectDeletableView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getProjectDeletable",
        parameters=PROJECT_PATH,
        responses=schema.responses(ProjectDeletableSerializer, 401, 403, 404),
    )
    def get(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "project:delete")
        deletable, message = projects.project_deletable(project)
        return Response(
            ProjectDeletableSerializer({"deletable": deletable, "message": message}).data
        )


class ProjectSummaryView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getProjectSummary",
        parameters=PROJECT_PATH,
        responses=schema.responses(ProjectSummarySerializer, 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "project:read")
        summary = selectors.project_summary(request.user, project)
        return Response(ProjectSummarySerializer(summary).data)
