"""Project metadata: a flat string map (served with and without the trailing slash)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.permissions import get_project
from registry.api.serializers.users import MetadataMapSerializer
from registry.models import ProjectMetadata
from registry.services import metadata

# Keys hidden on projects that are not proxy caches.
PROXY_ONLY = ("proxy_cache_filter_pattern", "proxy_cache_filter_kind")


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
        entries = ProjectMetadata.objects.filter(project=project).order_by("name")
        if not project.registry_id:
            entries = entries.exclude(name__in=PROXY_ONLY)
        return Response({entry.name: entry.value for entry in entries})

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
        entry = ProjectMetadata.objects.filter(project=project, name=meta_name).first()
        return Response({entry.name: entry.value} if entry else {})

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
