"""Labels: global (system admin) and project-scoped (project admins and maintainers)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.filters import Param
from registry import selectors
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import Column, QuerySpec, listing, optional
from registry.api.permissions import get_project, require_login, require_sysadmin
from registry.api.serializers.artifacts import LABEL
from registry.api.serializers.users import LabelCreateSerializer, LabelReqSerializer
from registry.models import Label
from registry.services import labels

LABEL_QUERY = QuerySpec(
    columns={
        "id": Column("pk", int),
        "name": Column("name"),
        "scope": Column("scope"),
        "project_id": Column("project_id", int),
    },
    default_order=("name", "pk"),
)
# scope and project_id choose the labels (and the permission asked), in the view.
LABEL_LISTING = listing(
    LABEL_QUERY,
    name=Param(parse=optional, apply=lambda qs, name: qs.filter(name__icontains=name)),
    scope=Param({"type": "string", "enum": ["g", "p"]}, default=Label.Scope.GLOBAL),
    project_id=Param(OpenApiTypes.INT64),
)


def check_label_access(request, label: Label, action: str) -> None:
    """Global labels: readable by all signed-in users, writable by sysadmins only."""
    if label.scope == Label.Scope.GLOBAL:
        if action.endswith(("read", "list")):
            require_login(request)
        else:
            require_sysadmin(request)
        return
    get_project(request, str(label.project_id), action)


class LabelListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="ListLabels",
        parameters=LABEL_LISTING.parameters,
        responses=schema.responses(LABEL.serializer(many=True), 400, 401),
    )
    def get(self, request):
        params = request.query_params
        scope = LABEL_LISTING.get(params, "scope")
        project_id = 0
        if scope == Label.Scope.PROJECT:
            # Without a project_id these are the labels of project 0, which does not exist.
            project_id = int(LABEL_LISTING.get(params, "project_id") or 0)
            get_project(request, str(project_id), "label:list")
        queryset = selectors.label_list(scope, project_id)
        return self.records_page(LABEL_LISTING.filter(queryset, params), LABEL)

    @extend_schema(
        operation_id="CreateLabel",
        request=LabelCreateSerializer,
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        require_login(request)
        body = self.body(LabelCreateSerializer)
        scope = body["scope"]
        project = None
        if scope == Label.Scope.PROJECT:
            # A project label of project 0 (none given) is a label of a missing project.
            project = get_project(request, str(body.get("project_id") or 0), "label:create")
        else:
            require_sysadmin(request)
        label = labels.create_label(
            body["name"],
            scope,
            project,
            description=body.get("description") or "",
            color=body.get("color") or "",
        )
        return self.empty(201, f"{request.path.rstrip('/')}/{label.pk}")


class LabelDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="GetLabelByID",
        responses=schema.responses(LABEL.serializer, 401, 403, 404),
    )
    def get(self, request, label_id):
        label = selectors.get_label(label_id)
        check_label_access(request, label, "label:read")
        return Response(LABEL.serializer(label).data)

    @extend_schema(
        operation_id="UpdateLabel",
        request=LabelReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def put(self, request, label_id):
        label = selectors.get_label(label_id)
        check_label_access(request, label, "label:update")
        body = self.body(LabelReqSerializer)
        labels.update_label(label, body.get("name"), body.get("description"), body.get("color"))
        return self.empty()

    @extend_schema(
        operation_id="DeleteLabel",
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def delete(self, request, label_id):
        label = selectors.get_label(label_id)
        check_label_access(request, label, "label:delete")
        label.delete()
        return self.empty()
