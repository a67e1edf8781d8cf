"""The audit log: every record for the admin, a project's records for who may read them."""

from datetime import datetime

from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from registry.api import schema
from registry.api.audit_serializers import AUDIT_LOG, audit_rows
from registry.api.base import HarborViewMixin
from registry.api.filters import Column, QuerySpec, listing
from registry.api.permissions import get_project, require_login
from registry.services import audit

AUDIT_QUERY = QuerySpec(
    columns={
        "username": Column("username"),
        "resource": Column("resource"),
        "resource_type": Column("resource_type"),
        "operation": Column("operation"),
        "op_time": Column("op_time", datetime),
        "id": Column("pk", int),
    },
    default_order=("-op_time", "-id"),
)
AUDIT_LISTING = listing(AUDIT_QUERY)


class AuditLogMixin(HarborViewMixin):
    def logs_response(self, queryset):
        queryset = AUDIT_LISTING.filter(queryset, self.request.query_params)
        return self.records_page(audit_rows(queryset), AUDIT_LOG)


class AuditLogListView(AuditLogMixin, APIView):
    @extend_schema(
        operation_id="listAuditLogs",
        parameters=AUDIT_LISTING.parameters,
        responses=schema.responses(AUDIT_LOG.serializer(many=True), 400, 401),
    )
    def get(self, request):
        require_login(request)
        return self.logs_response(audit.readable(request.user))


class ProjectLogsView(AuditLogMixin, APIView):
    @extend_schema(
        operation_id="getLogs",
        parameters=AUDIT_LISTING.parameters,
        responses=schema.responses(AUDIT_LOG.serializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name):
        project = get_project(request, project_name, "log:list", names_only=True)
        return self.logs_response(audit.of_project(project.pk))
