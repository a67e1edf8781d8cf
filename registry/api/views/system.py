from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from config import health
from config.kept import arg, kept
from config.plain_json import JSONText, mark_plain
from registry import access, configuration, name_search, selectors
from registry.api import schema
from registry.api.base import HarborViewMixin, validation_failure
from registry.api.permissions import require_login, require_sysadmin
from registry.api.search_json import SearchRepositoryText
from registry.api.serializers.projects import project_records
from registry.api.serializers.users import (
    SearchSerializer,
    StatisticSerializer,
    config_items,
)
from registry.api.views.projects import project_rows
from registry.services import configuration as configuration_service

# Harbor's component names; ours map onto the real processes and stores behind them.
HEALTH_COMPONENTS = {
    "core": lambda: None,
    "database": health.check_database,
    "jobservice": health.check_worker_recently,
    "portal": lambda: None,
    "redis": health.check_cache,
    "registry": health.check_storage_recently,
    "registryctl": lambda: None,
}


class HealthView(HarborViewMixin, APIView):
    """Health of every component; no authentication, always 200 (as Harbor)."""

    authentication_classes = []

    @extend_schema(
        operation_id="getHealth",
        responses=inline_serializer(
            "OverallHealthStatus",
            {
                "status": serializers.CharField(),
                "components": inline_serializer(
                    "ComponentHealthStatus",
                    {
                        "name": serializers.CharField(),
                        "status": serializers.CharField(),
                        "error": serializers.CharField(required=False),
                    },
                    many=True,
                ),
            },
        ),
    )
    def get(self, request):
        components = []
        for name in sorted(HEALTH_COMPONENTS):
            error = HEALTH_COMPONENTS[name]()
            entry = {"name": name, "status": "healthy" if error is None else "unhealthy"}
            if error:
                entry["error"] = error
            components.append(entry)
        overall = "healthy" if all(c["status"] == "healthy" for c in components) else "unhealthy"
        return Response({"status": overall, "components": components})


class AnyAccept(BaseContentNegotiation):
    """The ping answers text whatever the client accepts (errors stay JSON)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class PingView(HarborViewMixin, APIView):
    """Harbor's liveness answer: "Pong" while the process serves, whatever the health of
    the components behind it (nothing is touched: no authentication, no database)."""

    authentication_classes = []
    content_negotiation_class = AnyAccept

    @extend_schema(operation_id="getPing", responses={(200, "text/plain"): OpenApiTypes.STR})
    def get(self, request):
        return HttpResponse("Pong", content_type="text/plain; charset=utf-8")


class SearchView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="search",
        parameters=[schema.query("q", required=True)],
        responses=schema.responses(SearchSerializer),
    )
    def get(self, request):
        term = self.query_required("q")
        if "\x00" in term:
            # No name holds a NUL (PostgreSQL text cannot; SQLite's LIKE and FTS5 would read
            # it as the term's end, or fail): nothing matches.
            return mark_plain(Response({"project": [], "repository": []}))
        user = request.user
        kind, values = access.visibility(user)
        # The statements are kept per caller kind; bound: the term as `term`, the trigram
        # table's query as `phrase` (SQLite).
        text, phrase = arg("term"), name_search.candidates_query(term)

        def kept_rows(name: str, build, **more):
            return kept(kind and (name, kind), build).bind(**values, term=term, **more)

        # Harbor's search shows projects without owner_name and without allowlist contents.
        projects = list(
            kept_rows(
                "search_projects",
                lambda: project_rows(selectors.search_projects(user, text), False),
            )
        )
        repositories = kept_rows(
            "search_repositories" + ("_by_trigrams" if phrase else ""),
            lambda: (
                selectors.search_repositories(user, text, phrase and arg("phrase"))
                .annotate(text=SearchRepositoryText())
                .values_list("text", flat=True)
            ),
            phrase=phrase,
        )
        return mark_plain(
            Response(
                {
                    "project": project_records(projects, user, True, owner=False, allowlist=False),
                    "repository": JSONText("[" + ",".join(repositories) + "]"),
                }
            )
        )


class StatisticsView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getStatistic", responses=schema.responses(StatisticSerializer, 401)
    )
    def get(self, request):
        require_login(request)
        stats = selectors.statistics(request.user)
        return Response(StatisticSerializer(stats).data)


def editable_flags() -> dict:
    return {"auth_mode": configuration_service.auth_mode_editable()}


class ConfigurationsView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getConfigurations",
        responses=schema.responses(OpenApiTypes.OBJECT, 401, 403),
    )
    def get(self, request):
        require_sysadmin(request)
        return Response(config_items(configuration.public_values(), editable_flags()))

    @extend_schema(
        operation_id="updateConfigurations",
        request=OpenApiTypes.OBJECT,
        responses=schema.responses(None, 400, 401, 403),
    )
    def put(self, request):
        require_sysadmin(request)
        if not isinstance(request.data, dict):
            raise validation_failure("configurations", "body", "must be a JSON object")
        configuration_service.update_configuration(request.data)
        return self.empty()


class InternalConfigView(HarborViewMixin, APIView):
    """Every configuration item; passwords stay out here too (they never leave the server)."""

    @extend_schema(
        operation_id="getInternalconfig",
        responses=schema.responses(OpenApiTypes.OBJECT, 401, 403),
    )
    def get(self, request):
        require_sysadmin(request)
        return Response(config_items(configuration.public_values(), editable_flags()))
