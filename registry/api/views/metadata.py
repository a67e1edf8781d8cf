"""Project metadata: a flat string map (served with and without the trailing slash)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from registry import selectors
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.permissions import get_project
from registry.api.serializers.users import MetadataMapSerializer
from registry.services import metadata


class MetadataMixin(HarborViewMixin):
    def metadata_body(self) -> dict:
        return dict(self.body(MetadataMapSerializer))


class MetadataListView(MetadataMixin, APIView):
    @extend_schema(
        operation_id="listProjectMetadatas",
        parameters=[schema.IS_RESOURCE_NAME],
        responses=schema.responses(OpenApiTypes.OBJECT, 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "metadata:list")
        return Response(selectors.project_metadata(project))

    @extend_schema(
        operation_id="addProjectMetadatas",
        parameters=[schema.IS_RESOURCE_NAME],
        request={"application/json": schema.METADATA_BODY},
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def post(self, request, project_name_or_id):
        project = get_project(request, project_name_or_id, "metadata:create")
        metadata.add_metadata(project, self.metadata_body())
        return self.empty()


class MetadataDetailView(MetadataMixin, APIView):
    @extend_schema(
        operation_id="getProjectMetadata",
        parameters=[schema.IS_RESOURCE_NAME],
        responses=schema.responses(OpenApiTypes.OBJECT, 400, 401, 403, 404),
    )
    def get(self, request, project_name_or_id, meta_name):
        project = get_project(request, project_name_or_id, "metadata:read")
        return Response(selectors.project_metadata(project, meta_name))

    @extend_schema(
        operation_id="updateProjectMetadata",
        parameters=[schema.IS_RESOURCE_NAME],
        request={"application/json": schema.METADATA_BODY},
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def put(self, request, project_name_or_id, meta_name):
        project = get_project(request, project_name_or_id, "metadata:update")
        metadata.set_metadata(project, meta_name, self.metadata_body())
        return self.empty()

    @extend_schema(
        operation_id="deleteProjectMetadata",
        parameters=[schema.IS_RESOURCE_NAME],
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def delete(self, request, project_name_or_id, meta_name):
        project = get_project(request, project_name_or_id, "metadata:delete")
        metadata.delete_metadata(project, meta_name)
        return self.empty()
