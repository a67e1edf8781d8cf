"""Garbage collection: start or schedule it, its history and logs. System admins, and
system robots granted `garbage-collection` actions."""

from datetime import datetime

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from registry import selectors
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import Column, QuerySpec, listing
from registry.api.gc_serializers import (
    GC_HISTORY,
    ScheduleSerializer,
    execution_record,
    schedule_record,
)
from registry.api.permissions import require_system_access
from registry.errors import BadRequest, Conflict
from registry.gc import services
from registry.gc.models import GCExecution

RESOURCE = "garbage-collection"
HISTORY_QUERY = QuerySpec(
    columns={
        "id": Column("pk", int),
        "job_status": Column("status"),
        "job_kind": Column("trigger"),
        "creation_time": Column("creation_time", datetime),
        "update_time": Column("update_time", datetime),
    },
    default_order=("-creation_time", "-pk"),
)
HISTORY_LISTING = listing(HISTORY_QUERY)


class GCHistoryView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getGCHistory",
        parameters=HISTORY_LISTING.parameters,
        responses=schema.responses(GC_HISTORY.serializer(many=True), 401, 403),
    )
    def get(self, request):
        require_system_access(request, RESOURCE, "list")
        queryset = HISTORY_LISTING.filter(selectors.gc_executions(), request.query_params)
        return self.records_page(queryset, GC_HISTORY)


class GCDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getGC", responses=schema.responses(GC_HISTORY.serializer, 401, 403, 404)
    )
    def get(self, request, gc_id):
        require_system_access(request, RESOURCE, "read")
        return Response(execution_record(selectors.get_gc_execution(gc_id)))


class PlainTextRenderer(BaseRenderer):
    """Lets `Accept: text/plain` (harborapi's) through; errors keep Harbor's JSON body."""

    media_type = "text/plain"
    format = "txt"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return JSONRenderer().render(data)


class GCLogView(HarborViewMixin, APIView):
    renderer_classes = [JSONRenderer, PlainTextRenderer]

    @extend_schema(
        operation_id="getGCLog",
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="the run's log"),
            **{
                status: body
                for status, body in schema.responses(None, 401, 403, 404).items()
                if status != 200
            },
        },
    )
    def get(self, request, gc_id):
        require_system_access(request, RESOURCE, "read")
        execution = selectors.get_gc_execution(gc_id)
        return HttpResponse(execution.log, content_type="text/plain; charset=utf-8")


class GCScheduleView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getGCSchedule", responses=schema.responses(GC_HISTORY.serializer, 401, 403)
    )
    def get(self, request):
        require_system_access(request, RESOURCE, "read")
        # No schedule: an empty record (harborapi reads the body as JSON).
        return Response(schedule_record(selectors.gc_schedule()))

    @extend_schema(
        operation_id="createGCSchedule",
        request=ScheduleSerializer,
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        require_system_access(request, RESOURCE, "create")
        execution = self.apply(request)
        # As Harbor: the run's address for Manual, id 0 for a schedule.
        location = request.path.rsplit("/", 1)[0] + f"/{execution.pk if execution else 0}"
        return self.empty(201, location)

    @extend_schema(
        operation_id="updateGCSchedule",
        request=ScheduleSerializer,
        responses=schema.responses(None, 400, 401, 403, 409),
    )
    def put(self, request):
        require_system_access(request, RESOURCE, "update")
        self.apply(request)
        return self.empty(200)

    def apply(self, request) -> GCExecution | None:
        """Manual starts a run now; None removes the schedule; the others replace it."""
        body = request.data if isinstance(request.data, dict) else {}
        kind = (body.get("schedule") or {}).get("type") or ""
        cron = (body.get("schedule") or {}).get("cron") or ""
        parameters = body.get("parameters") or {}
        # Harbor reads each parameter only when it is a JSON boolean.
        delete_untagged = parameters.get("delete_untagged") is True
        dry_run = parameters.get("dry_run") is True
        if not kind:
            raise BadRequest("empty schedule type")
        try:
            if kind == "Manual":
                return services.start(delete_untagged, dry_run, GCExecution.Trigger.MANUAL)
            services.set_schedule(kind, cron, delete_untagged, dry_run)
        except services.AlreadyRunning as exc:
            raise Conflict(str(exc)) from exc
        except services.InvalidSchedule as exc:
            raise BadRequest(str(exc)) from exc
        return None
