"""Base of the three services' paginators: offset paging with X-Total-Count and Link headers.

A page costs two queries (count and slice) whatever its size. Subclasses say how the
page size is read and how the Link header is written, as their modelled system does.
"""

from rest_framework.pagination import BasePagination
from rest_framework.response import Response


class HeaderPagination(BasePagination):
    page_query_param = "page"
    page_size_query_param = "page_size"
    default_page_size = 10
    max_page_size = 100

    def get_page_number(self, request) -> int:
        try:
            page = int(request.query_params.get(self.page_query_param, 1))
        except ValueError:
            page = 1
        return max(page, 1)

    def get_page_size(self, request) -> int | None:
        """Items per page; None means no limit."""
        try:
            size = int(request.query_params.get(self.page_size_query_param, self.default_page_size))
        except ValueError:
            size = self.default_page_size
        if size <= 0:
            return self.default_page_size
        return min(size, self.max_page_size)

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.page = self.get_page_number(request)
        self.page_size = self.get_page_size(request)
        self.total = (
            queryset.count()
            if hasattr(queryset, "count") and not isinstance(queryset, list)
            else len(queryset)
        )
        if self.page_size is None:
            return list(queryset)
        offset = (self.page - 1) * self.page_size
        return list(queryset[offset : offset + self.page_size])

    def get_links(self) -> str:
        """The Link header value, or '' for none."""
        return ""

    def get_paginated_response(self, data):
        response = Response(data)
        self.add_headers(response)
        return response

    def add_headers(self, response) -> None:
        response["X-Total-Count"] = str(self.total)
        links = self.get_links()
        if links:
            response["Link"] = links

    def page_query(self, page: int, **overrides) -> dict:
        """The request's query parameters with `page` (and any overrides) replaced."""
        params = {key: self.request.query_params.getlist(key) for key in self.request.query_params}
        params[self.page_query_param] = [str(page)]
        for key, value in overrides.items():
            params[key] = [str(value)]
        return params

    def get_paginated_response_schema(self, schema):
        return schema

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.page_query_param,
                "in": "query",
                "required": False,
                "schema": {"type": "integer"},
            },
            {
                "name": self.page_size_query_param,
                "in": "query",
                "required": False,
                "schema": {"type": "integer"},
            },
        ]
