"""OpenAPI annotations shared by the registry views (parameters, error responses)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from registry.api.serializers import ErrorsSerializer

ERROR = OpenApiResponse(ErrorsSerializer, description="Harbor error")


def responses(ok, *errors: int, ok_status: int = 200, headers: dict | None = None) -> dict:
    """`ok` for the success status (None: no body) plus Harbor error bodies for `errors`;
    422 is always possible (parameter validation) and 500 is Harbor's unknown error."""
    result = {ok_status: ok if ok is not None else OpenApiResponse(description="no body")}
    for status in {*errors, 422}:
        result[status] = ERROR
    return result


def query(name: str, kind=OpenApiTypes.STR, required: bool = False, description: str = ""):
    return OpenApiParameter(name, kind, OpenApiParameter.QUERY, required, description)


def header(name: str, kind=OpenApiTypes.STR, description: str = ""):
    return OpenApiParameter(name, kind, OpenApiParameter.HEADER, False, description)


PAGE = [query("page", OpenApiTypes.INT64), query("page_size", OpenApiTypes.INT64)]
LISTING = [query("q"), query("sort"), *PAGE]
IS_RESOURCE_NAME = header("X-Is-Resource-Name", OpenApiTypes.BOOL)
