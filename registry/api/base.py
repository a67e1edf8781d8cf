"""Harbor v2.0 wire conventions, set once for every registry API view."""

from django.http import HttpResponse
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from config.views import ServiceViewMixin, UnknownPathView
from registry.api.authentication import HarborBasicAuthentication, HarborSessionAuthentication
from registry.api.exceptions import harbor_exception_handler
from registry.api.pagination import HarborPagination
from registry.api.schema import HarborAutoSchema
from registry.errors import UnprocessableEntity

TRUE_WORDS = ("1", "t", "true")
FALSE_WORDS = ("0", "f", "false")
INT64 = (-(2**63), 2**63 - 1)

# Typed query parameters and headers of the registry API, checked before any view runs,
# as go-swagger does from Harbor's schema: a malformed value is 422, never a 500.
QUERY_TYPES = {
    "page": "int64",
    "page_size": "int64",
    "project_id": "int64",
    "public": "boolean",
    "with_detail": "boolean",
    "with_tag": "boolean",
    "with_label": "boolean",
    "with_scan_overview": "boolean",
    "with_sbom_overview": "boolean",
    "with_immutable_status": "boolean",
    "with_accessory": "boolean",
    "relative": "boolean",
}
HEADER_TYPES = {"X-Is-Resource-Name": "boolean", "X-Resource-Name-In-Location": "boolean"}


def _valid(kind: str, raw: str) -> bool:
    if kind == "boolean":
        return raw.lower() in TRUE_WORDS + FALSE_WORDS
    try:
        return INT64[0] <= int(raw) <= INT64[1]
    except ValueError:
        return False


def validation_failure(field: str, where: str, problem: str) -> UnprocessableEntity:
    """go-swagger's 422 text for a parameter or body that fails the schema."""
    return UnprocessableEntity(f"validation failure list:\n{field} in {where} {problem}")


class HarborViewMixin(ServiceViewMixin):
    authentication_classes = [HarborBasicAuthentication, HarborSessionAuthentication]
    permission_classes = [AllowAny]
    pagination_class = HarborPagination
    exception_handler = staticmethod(harbor_exception_handler)
    schema = HarborAutoSchema()

    @property
    def paginator(self) -> HarborPagination:
        if not hasattr(self, "_paginator"):
            self._paginator = self.pagination_class()
        return self._paginator

    # --- request side ---------------------------------------------------------------------

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        for name, kind in QUERY_TYPES.items():
            raw = request.query_params.get(name)
            if raw is not None and not _valid(kind, raw):
                raise validation_failure(name, "query", f'must be of type {kind}: "{raw}"')
        for name, kind in HEADER_TYPES.items():
            raw = request.headers.get(name)
            if raw not in (None, "") and not _valid(kind, raw):
                raise validation_failure(name, "header", f'must be of type {kind}: "{raw}"')

    def query_bool(self, name: str, default: bool) -> bool:
        raw = self.request.query_params.get(name)
        if raw is None or raw == "":
            return default
        if raw.lower() in TRUE_WORDS:
            return True
        if raw.lower() in FALSE_WORDS:
            return False
        raise validation_failure(name, "query", f'must be of type boolean: "{raw}"')

    def query_required(self, name: str) -> str:
        value = self.request.query_params.get(name)
        if value is None:
            raise validation_failure(name, "query", "is required")
        return value

    def body(self, serializer_class, required: bool = True) -> dict:
        """The validated JSON body; a body that fails the schema is 422 as in Harbor."""
        data = self.request.data
        if not isinstance(data, dict):
            if data in (None, "", {}) and not required:
                return {}
            raise validation_failure("body", "body", "must be a JSON object")
        serializer = serializer_class(data=data)
        if not serializer.is_valid():
            field, problems = next(iter(serializer.errors.items()))
            raise validation_failure(field, "body", _first(problems))
        return serializer.validated_data

    # --- response side --------------------------------------------------------------------

    @staticmethod
    def empty(status: int = 200, location: str | None = None) -> HttpResponse:
        """Harbor's bodiless answer: no body and no JSON content type (harborapi relies on it)."""
        response = HttpResponse(status=status)
        del response["Content-Type"]
        if location:
            response["Location"] = location
        return response

    def list_response(self, queryset, serializer_class, context: dict | None = None) -> Response:
        data = serializer_class(
            self.page(queryset), many=True, context=self.serializer_context(context)
        ).data
        return self.paginated(data)

    def page(self, queryset) -> list:
        """The requested page of `queryset` (its count is taken for X-Total-Count)."""
        return self.paginator.paginate_queryset(queryset, self.request, view=self)

    def paginated(self, records: list) -> Response:
        """The page's records with Harbor's paging headers."""
        return self.paginator.get_paginated_response(records)

    def serializer_context(self, extra: dict | None = None) -> dict:
        return {"request": self.request, **(extra or {})}


def _first(problems) -> str:
    if isinstance(problems, dict):
        return _first(next(iter(problems.values())))
    if isinstance(problems, list) and problems:
        return _first(problems[0])
    return str(problems)


class HarborUnknownPathView(HarborViewMixin, UnknownPathView):
    not_found_message = "path {path} was not found"
