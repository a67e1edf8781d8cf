"""Tags of one artifact: the list, a new tag, removing one (Harbor's listTags, createTag,
deleteTag). Harbor answers createTag 201 without a Location (it serves no single tag)."""

from datetime import datetime

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.views import APIView

from config.filters import Param
from registry.api import schema
from registry.api.base import harbor_bool
from registry.api.filters import Column, QuerySpec, listing
from registry.api.permissions import get_project
from registry.api.serializers.artifacts import TAG
from registry.api.serializers.fields import StrictCharField
from registry.api.views.artifacts import ArtifactMixin
from registry.models import Tag
from registry.services import audit, tags

TAG_QUERY = QuerySpec(
    columns={
        "id": Column("pk", int),
        "repository_id": Column("repository_id", int),
        "artifact_id": Column("artifact_id", int),
        "name": Column("name"),
        "push_time": Column("push_time", datetime),
        "pull_time": Column("pull_time", datetime),
    },
    default_order=("-push_time", "-pk"),
)
# Tag immutability rules are not modelled: `immutable` is false whatever the flag says.
TAG_LISTING = listing(
    TAG_QUERY,
    with_immutable_status=Param(OpenApiTypes.BOOL, harbor_bool, False),
)


class NewTagSerializer(serializers.Serializer):
    name = StrictCharField(allow_blank=True)


def _tag_resource(artifact, name: str) -> str:
    return f"{artifact.repository.name}:{name}"


class ArtifactTagsView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="listTags",
        parameters=TAG_LISTING.parameters,
        responses=schema.responses(TAG.serializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "tag:list", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        queryset = TAG_LISTING.filter(Tag.objects.filter(artifact=artifact), request.query_params)
        return self.records_page(queryset, TAG)

    @extend_schema(
        operation_id="createTag",
        request=NewTagSerializer,
        responses=schema.responses(None, 400, 401, 403, 404, 409, ok_status=201),
    )
    def post(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "tag:create", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        name = self.body(NewTagSerializer)["name"]
        tags.create_tag(project, artifact, name)
        resource = _tag_resource(artifact, name)
        audit.record(project.pk, "create", "tag", resource, audit.username_of(request.user))
        return self.empty(201)


class ArtifactTagDetailView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="deleteTag",
        responses=schema.responses(None, 401, 403, 404),
    )
    def delete(self, request, project_name, repository_name, reference, tag_name):
        project = get_project(request, project_name, "tag:delete", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        tags.delete_tag(artifact, tag_name)
        resource = _tag_resource(artifact, tag_name)
        audit.record(project.pk, "delete", "tag", resource, audit.username_of(request.user))
        return self.empty()
