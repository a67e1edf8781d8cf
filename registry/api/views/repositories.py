"""Repositories: all visible ones, per project, and one by name (read, update, delete).

A repository name holding "/" arrives double-encoded (`a%252Fb`); Django has decoded it
once, so it is decoded once more here. A single-encoded `%2F` also works.
"""

from datetime import datetime
from urllib.parse import unquote

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.kept import Totalled, kept, value
from registry import access, selectors
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import Column, QuerySpec, listing
from registry.api.permissions import get_project
from registry.api.serializers.artifacts import (
    REPOSITORY,
    RepositoryUpdateSerializer,
    repository_rows,
)
from registry.models import Repository
from registry.services import audit, repositories


def _blob_digest_filter(queryset, term):
    return queryset.filter(artifacts__digest=str(getattr(term, "value", ""))).distinct()


REPOSITORY_QUERY = QuerySpec(
    columns={
        "repository_id": Column("pk", int),
        "id": Column("pk", int),
        "name": Column("name"),
        "project_id": Column("project_id", int),
        "description": Column("description"),
        "pull_count": Column("pull_count", int),
        "creation_time": Column("creation_time", datetime),
        "update_time": Column("update_time", datetime),
    },
    default_order=("-creation_time", "-pk"),
    special={"blob_digest": _blob_digest_filter},
)
REPOSITORY_LISTING = listing(REPOSITORY_QUERY)


class RepositoryListMixin(HarborViewMixin):
    def repository_page(self, key: tuple, build, counts=None, **values):
        """The page of the repositories `build()` selects (on the markers `values` fill),
        its statement kept per process under `key` unless `q` or `sort` is given; `counts`
        (key, build), when no `q` narrows the list, gives its total as per project counts."""
        params = self.request.query_params
        if "q" in params or "sort" in params:
            key = None  # the request's own filter values are written into the SQL

        def rows():
            queryset = REPOSITORY_LISTING.filter(selectors.with_artifact_count(build()), params)
            return repository_rows(queryset)

        page = kept(key, rows, ids_first=True).bind(**values)
        if counts is not None and "q" not in params:
            page = Totalled(page, kept(*counts))
        page = self.page(page)
        return self.paginated([REPOSITORY.render(row) for row in page], plain=True)


class AllRepositoriesView(RepositoryListMixin, APIView):
    @extend_schema(
        operation_id="listAllRepositories",
        parameters=REPOSITORY_LISTING.parameters,
        responses=schema.responses(REPOSITORY.serializer(many=True), 400),
    )
    def get(self, request):
        user = request.user
        kind, values = access.visibility(user)
        return self.repository_page(
            kind and ("repositories", kind),
            lambda: selectors.visible_repositories(user, marked=True),
            counts=(
                kind and ("repository_counts", kind),
                lambda: selectors.visible_repository_counts(user, marked=True),
            ),
            **values,
        )


class ProjectRepositoriesView(RepositoryListMixin, APIView):
    @extend_schema(
        operation_id="listRepositories",
        parameters=REPOSITORY_LISTING.parameters,
        responses=schema.responses(REPOSITORY.serializer(many=True), 400, 401, 403, 404),
    )
    def get(self, request, project_name):
        project = get_project(request, project_name, "repository:list", names_only=True)
        return self.repository_page(
            ("project_repositories",),
            lambda: Repository.objects.filter(project_id=value("project")),
            project=project.pk,
        )


class RepositoryDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getRepository",
        responses=schema.responses(REPOSITORY.serializer, 400, 401, 403, 404),
    )
    def get(self, request, project_name, repository_name):
        # Harbor's getRepository asks for repository:list (which a public project grants
        # to anyone), not repository:read.
        project = get_project(request, project_name, "repository:list", names_only=True)
        repository = repositories.find_repository(project, repository_name_of(repository_name))
        rows = selectors.with_artifact_count(Repository.objects.filter(pk=repository.pk))
        return Response(REPOSITORY.render(repository_rows(rows).get()))

    @extend_schema(
        operation_id="updateRepository",
        request=RepositoryUpdateSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, project_name, repository_name):
        project = get_project(request, project_name, "repository:update", names_only=True)
        repository = repositories.find_repository(project, repository_name_of(repository_name))
        body = self.body(RepositoryUpdateSerializer)
        repositories.update_repository_description(repository, body.get("description", ""))
        return self.empty()

    @extend_schema(
        operation_id="deleteRepository",
        responses=schema.responses(None, 400, 401, 403, 404, 412),
    )
    def delete(self, request, project_name, repository_name):
        project = get_project(request, project_name, "repository:delete", names_only=True)
        repository = repositories.find_repository(project, repository_name_of(repository_name))
        repositories.delete_repository(repository)
        username = audit.username_of(request.user)
        audit.record(project.pk, "delete", "repository", repository.name, username)
        return self.empty()


def repository_name_of(raw: str) -> str:
    """The repository path after the project, with Harbor's double encoding undone."""
    return unquote(raw)
