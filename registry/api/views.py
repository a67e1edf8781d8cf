from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config import health
from registry.api.base import HarborViewMixin

# Harbor's component names; ours map onto the real processes and stores behind them.
HEALTH_COMPONENTS = {
    "core": lambda: None,
    "database": health.check_database,
    "jobservice": health.check_worker,
    "portal": lambda: None,
    "redis": health.check_cache,
    "registry": health.check_storage,
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
