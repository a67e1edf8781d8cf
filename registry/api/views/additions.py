"""What hangs off one artifact besides its tags: its additions (the `addition_links` of
an artifact record), the vulnerabilities addition, and its accessories."""

from datetime import datetime

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from registry.api import schema
from registry.api.filters import Column, Exact, QuerySpec, listing
from registry.api.permissions import get_project
from registry.api.serializers.accessories import ACCESSORY
from registry.api.views.artifacts import ArtifactMixin
from registry.errors import BadRequest
from registry.services import accessories, additions


def _type_filter(queryset, term):
    if not isinstance(term, Exact):
        raise BadRequest("invalid value of type")
    return accessories.of_type(queryset, str(term.value))


ACCESSORY_QUERY = QuerySpec(
    columns={
        "id": Column("pk", int),
        "artifact_id": Column("artifact_id", int),
        "digest": Column("artifact__digest"),
        "size": Column("artifact__size", int),
        "creation_time": Column("artifact__push_time", datetime),
    },
    default_order=("pk",),
    special={"type": _type_filter},
)
ACCESSORY_LISTING = listing(ACCESSORY_QUERY)


def _content(addition: additions.Addition) -> HttpResponse:
    return HttpResponse(addition.content, content_type=addition.content_type)


class ArtifactAdditionView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="getAddition",
        responses=schema.responses(OpenApiTypes.STR, 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name, reference, addition):
        project = get_project(request, project_name, "artifact-addition:read", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        return _content(additions.get_addition(artifact, addition))


class ArtifactVulnerabilitiesView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="getVulnerabilitiesAddition",
        parameters=[schema.header("X-Accept-Vulnerabilities")],
        responses=schema.responses(OpenApiTypes.STR, 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "artifact-addition:read", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        return _content(additions.vulnerabilities(artifact))


class ArtifactAccessoriesView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="listAccessories",
        parameters=ACCESSORY_LISTING.parameters,
        responses=schema.responses(ACCESSORY.serializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "accessory:list", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        queryset = ACCESSORY_LISTING.filter(
            accessories.accessories_of(artifact), request.query_params
        )
        rows = self.page(queryset.values(*ACCESSORY.columns))
        subject = {
            "id": artifact.pk,
            "digest": artifact.digest,
            "repository": artifact.repository.name,
        }
        records = [ACCESSORY.render(row, {"subject": subject}) for row in rows]
        return self.paginated(records, plain=True)
