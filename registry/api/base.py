"""Harbor v2.0 wire conventions, set once for every registry API view."""

from django.http import HttpResponse
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.plain_json import PlainJSONRenderer, mark_plain
from config.views import ServiceViewMixin, UnknownPathView
from registry.api import harbor_schema, validation
from registry.api.authentication import HarborBasicAuthentication, HarborSessionAuthentication
from registry.api.exceptions import harbor_exception_handler
from registry.api.pagination import HarborPagination
from registry.api.schema import HarborAutoSchema
from registry.errors import UnprocessableEntity

PREFIX = "/api/v2.0/"


def validation_failure(field: str, where: str, problem: str) -> UnprocessableEntity:
    """go-swagger's 422 text for a parameter or body that fails the schema."""
    return UnprocessableEntity(f"validation failure list:\n{field} in {where} {problem}")


class HarborViewMixin(ServiceViewMixin):
    authentication_classes = [HarborBasicAuthentication, HarborSessionAuthentication]
    permission_classes = [AllowAny]
    pagination_class = HarborPagination
    # Lists of plain records are encoded by orjson (`paginated`); the rest as DRF does.
    renderer_classes = [PlainJSONRenderer]
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
        # Harbor's schema is enforced before any handler (go-swagger binds first): a
        # request that breaks it is 422 whoever asks, before 401/403/404.
        method = request.method.lower()
        if method not in self.http_method_names or not hasattr(self, method):
            return  # 405 comes first for a method this route does not serve
        route = request.resolver_match.route if request.resolver_match else ""
        op, values = harbor_schema.operation(route, request.method), kwargs
        if "{repository_name}" in harbor_schema.template(route):
            # Our repository routes take a name with raw "/" greedily; Harbor's router
            # splits there, so `.../artifacts/x/labels/abc` is removeLabel's bad label_id.
            segmented = harbor_schema.path_operation(
                request.path.removeprefix(PREFIX), request.method
            )
            op, values = segmented or (op, values)
        validation.validate(op, request, values)

    def query_bool(self, name: str, default: bool) -> bool:
        raw = self.request.query_params.get(name)
        value = None if raw is None else harbor_bool(name, raw)
        return default if value is None else value

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

    def records_page(self, queryset, record) -> Response:
        """The requested page of `queryset`, read as `record`'s columns and rendered by it."""
        rows = self.page(queryset.values(*record.columns))
        return self.paginated([record.render(row) for row in rows], plain=True)

    def page(self, queryset) -> list:
        """The requested page of `queryset` (its count is taken for X-Total-Count)."""
        return self.paginator.paginate_queryset(queryset, self.request, view=self)

    def paginated(self, records: list, plain: bool = False) -> Response:
        """The page's records with Harbor's paging headers; `plain`: records holding only
        str, int, bool, None, dict and list (no float), which orjson encodes."""
        response = self.paginator.get_paginated_response(records)
        return mark_plain(response) if plain else response

    def serializer_context(self, extra: dict | None = None) -> dict:
        return {"request": self.request, **(extra or {})}


def harbor_bool(name: str, raw: str) -> bool | None:
    """A query bool as go-swagger binds it (an empty value is no value)."""
    if raw == "":
        return None
    if raw.lower() in validation.CONVERT_BOOL_TRUE:
        return True
    if raw.lower() in validation.CONVERT_BOOL_FALSE:
        return False
    raise validation_failure(name, "query", f'must be of type bool: "{raw}"')


def _first(problems) -> str:
    if isinstance(problems, dict):
        return _first(next(iter(problems.values())))
    if isinstance(problems, list) and problems:
        return _first(problems[0])
    return str(problems)


class HarborUnknownPathView(HarborViewMixin, UnknownPathView):
    not_found_message = "path {path} was not found"

    def initial(self, request, *args, **kwargs):
        # A served operation's path whose id segment our routes refuse (not digits, or
        # past int64) is Harbor's 422 for that parameter, not an unknown path.
        matched = harbor_schema.path_operation(request.path.removeprefix(PREFIX), request.method)
        if matched:
            APIView.initial(self, request, *args, **kwargs)
            validation.validate(matched[0], request, matched[1])
        UnknownPathView.initial(self, request, *args, **kwargs)
