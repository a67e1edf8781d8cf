"""OpenAPI annotations shared by the registry views (parameters, error responses)."""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from config.filters import QueryFilters
from registry.api.filters import PAGING
from registry.api.serializers.fields import ErrorsSerializer
from registry.services.metadata import BOOL_METADATA


class HarborAutoSchema(AutoSchema):
    """Response records list no required keys: go-swagger omits zero values (harbor.md §1).
    Optional query parameters admit an empty value, as go-swagger's binding does."""

    def _get_parameters(self):
        parameters = super()._get_parameters()
        for parameter in parameters:
            # go-swagger lets an empty optional query value through (the default applies).
            if parameter["in"] == "query" and not parameter.get("required"):
                parameter["allowEmptyValue"] = True
        return parameters

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "response":
            schema.pop("required", None)
        return schema


ERROR = OpenApiResponse(ErrorsSerializer, description="Harbor error")


def responses(ok, *errors: int, ok_status: int = 200, headers: dict | None = None) -> dict:
    """`ok` for the success status (None: no body) plus Harbor error bodies for `errors`.

    Every operation may also answer 400 (bad q), 401/403 (Harbor's permission-first
    decision), 404 (unknown path below the prefix) and 422 (parameter validation)."""
    result = {ok_status: ok if ok is not None else OpenApiResponse(description="no body")}
    for status in {*errors, 400, 401, 403, 404, 422}:
        result[status] = ERROR
    return result


def query(name: str, kind=OpenApiTypes.STR, required: bool = False, description: str = ""):
    return OpenApiParameter(name, kind, OpenApiParameter.QUERY, required, description)


def header(name: str, kind=OpenApiTypes.STR, description: str = ""):
    return OpenApiParameter(name, kind, OpenApiParameter.HEADER, False, description)


PAGE = QueryFilters(PAGING).parameters

BOOL_META = {"type": "string", "enum": ["true", "false"]}
# Body of POST/PUT metadata: exactly one known key with a valid value (harbor.md §12).
METADATA_BODY = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": 1,
    "additionalProperties": False,
    "properties": {
        **{key: BOOL_META for key in BOOL_METADATA},
        "severity": {"type": "string", "enum": ["none", "low", "medium", "high", "critical"]},
    },
}
IS_RESOURCE_NAME = header("X-Is-Resource-Name", OpenApiTypes.BOOL)
