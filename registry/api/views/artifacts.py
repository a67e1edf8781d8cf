"""Artifacts of a repository: the list with Harbor's q language, one artifact, its labels."""

from datetime import datetime

from django.db.models import Exists, OuterRef
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.filters import Param, QueryFilters
from config.kept import kept, value
from config.limits import INT64_MAX, INT64_MIN
from registry import selectors
from registry.api import schema
from registry.api.base import HarborViewMixin, harbor_bool
from registry.api.filters import (
    AllOf,
    Column,
    Exact,
    Fuzzy,
    QuerySpec,
    listing,
)
from registry.api.permissions import get_project
from registry.api.serializers.artifacts import ARTIFACT, artifact_records
from registry.api.serializers.users import LabelIdSerializer
from registry.api.views.repositories import repository_name_of
from registry.errors import BadRequest
from registry.models import Artifact, ArtifactLabel, Tag
from registry.services import artifacts, audit, labels


def _tags_filter(queryset, term):
    tags = Tag.objects.filter(artifact=OuterRef("pk"))
    if isinstance(term, Exact) and term.value == "*":
        return queryset.filter(Exists(tags))
    if isinstance(term, Exact) and term.value == "nil":
        return queryset.filter(~Exists(tags))
    if isinstance(term, Exact):
        return queryset.filter(Exists(tags.filter(name=term.value)))
    if isinstance(term, Fuzzy):
        # Case-sensitive, unlike the other fuzzy matches (Harbor uses LIKE here).
        return queryset.filter(Exists(tags.filter(selectors.contains_exactly("name", term.value))))
    raise BadRequest("invalid value of tags")


def _labels_filter(queryset, term):
    # Harbor's q parser reads a number past int64 as a string: no label id either.
    if not isinstance(term, AllOf) or not all(
        isinstance(v, int) and INT64_MIN <= v <= INT64_MAX for v in term.values
    ):
        raise BadRequest("only support the AND list of integers for labels")
    for label_id in term.values:
        queryset = queryset.filter(
            Exists(ArtifactLabel.objects.filter(artifact=OuterRef("pk"), label_id=label_id))
        )
    return queryset


ARTIFACT_QUERY = QuerySpec(
    columns={
        "id": Column("pk", int),
        "type": Column("type"),
        "media_type": Column("media_type"),
        "manifest_media_type": Column("manifest_media_type"),
        "artifact_type": Column("artifact_type"),
        "project_id": Column("project_id", int),
        "repository_id": Column("repository_id", int),
        "digest": Column("digest"),
        "size": Column("size", int),
        "icon": Column("icon"),
        "push_time": Column("push_time", datetime),
        "pull_time": Column("pull_time", datetime),
    },
    default_order=("-push_time", "-pk"),
    special={"tags": _tags_filter, "labels": _labels_filter, "base": lambda qs, term: qs},
)
ARTIFACT_LISTING = listing(ARTIFACT_QUERY)
BOOL = OpenApiTypes.BOOL
# Scan and SBOM overviews need a scanner; none is configured, so they stay absent. Those
# flags are still checked, first, as Harbor binds them.
ARTIFACT_FLAGS = QueryFilters(
    {
        "with_scan_overview": Param(BOOL, harbor_bool, False),
        "with_sbom_overview": Param(BOOL, harbor_bool, False),
        "with_immutable_status": Param(BOOL, harbor_bool, False),
        "with_accessory": Param(BOOL, harbor_bool, False),
        "with_tag": Param(BOOL, harbor_bool, True),
        "with_label": Param(BOOL, harbor_bool, False),
    }
)


ARTIFACT_PARAMS = [*ARTIFACT_FLAGS.parameters, schema.header("X-Accept-Vulnerabilities")]


class ArtifactMixin(HarborViewMixin):
    def flags(self) -> dict:
        flags = ARTIFACT_FLAGS.parse(self.request.query_params)
        return {key: flags[key] for key in ("with_tag", "with_label", "with_accessory")}

    def find_artifact(self, project, repository_name: str, reference: str) -> Artifact:
        return artifacts.find_artifact(project, repository_name_of(repository_name), reference)


class ArtifactListView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="listArtifacts",
        parameters=[*ARTIFACT_LISTING.parameters, *ARTIFACT_PARAMS],
        responses=schema.responses(ARTIFACT.serializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name):
        project = get_project(request, project_name, "artifact:list", names_only=True)
        flags = self.flags()
        full_name = f"{project.name}/{repository_name_of(repository_name)}"
        params = request.query_params
        every = "base=*" in (params.get("q") or "")
        # Kept per process unless the request's own filter values are written into the SQL.
        key = None if "q" in params or "sort" in params else ("artifacts",)

        def build():
            queryset = selectors.repository_artifacts(value("repository"), every)
            return ARTIFACT_LISTING.filter(queryset, params).values(*ARTIFACT.columns)

        repository_id = selectors.repository_id(project, full_name)
        rows = self.page(kept(key, build).bind(repository=repository_id))
        return self.paginated(artifact_records(rows, full_name, **flags))


class ArtifactDetailView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="getArtifact",
        parameters=ARTIFACT_PARAMS,
        responses=schema.responses(ARTIFACT.serializer, 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "artifact:read", names_only=True)
        flags = self.flags()
        artifact = self.find_artifact(project, repository_name, reference)
        rows = list(Artifact.objects.filter(pk=artifact.pk).values(*ARTIFACT.columns))
        return Response(artifact_records(rows, artifact.repository.name, **flags)[0])

    @extend_schema(
        operation_id="deleteArtifact",
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def delete(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "artifact:delete", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        accessories = artifacts.delete_artifact(artifact)
        username = audit.username_of(request.user)
        for digest in [*accessories, artifact.digest]:
            resource = audit.artifact_resource(artifact.repository.name, digest)
            audit.record(project.pk, "delete", "artifact", resource, username)
        return self.empty()


class ArtifactLabelsView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="addLabel",
        request=LabelIdSerializer,
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def post(self, request, project_name, repository_name, reference):
        project = get_project(request, project_name, "artifact-label:create", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        label_id = self.body(LabelIdSerializer)["id"]
        labels.add_label_to_artifact(artifact, selectors.get_label(label_id))
        return self.empty()


class ArtifactLabelDetailView(ArtifactMixin, APIView):
    @extend_schema(
        operation_id="removeLabel",
        responses=schema.responses(None, 400, 401, 403, 404, 409),
    )
    def delete(self, request, project_name, repository_name, reference, label_id):
        project = get_project(request, project_name, "artifact-label:delete", names_only=True)
        artifact = self.find_artifact(project, repository_name, reference)
        labels.remove_label_from_artifact(artifact, int(label_id))
        return self.empty()
