import math
from urllib.parse import urlencode

from django.conf import settings

from codehost.api.params import gitea_int
from config.filters import Param, QueryFilters
from config.limits import INT32_MAX
from config.pagination import HeaderPagination

# Gitea parses paging as int64: text is refused rather than silently replaced, and beyond
# int64 is an error, not the last page. The paginator clamps what parses.
PAGING = QueryFilters({"page": Param(int, gitea_int, 1), "limit": Param(int, gitea_int, 30)})


class GiteaPagination(HeaderPagination):
    """Gitea paging: `limit` default 30, silently capped at 50.

    Link entries are absolute, in the order next, last, first, prev, joined by ",".
    """

    page_size_query_param = "limit"
    default_page_size = PAGING.params["limit"].default
    max_page_size = 50

    # Far beyond any data, and the OFFSET stays within the database's bigint.
    max_page = INT32_MAX

    def paginate_queryset(self, queryset, request, view=None, total: int | None = None):
        """As the base class; a `total` already known (a stored counter) spares the COUNT."""
        if total is None:
            return super().paginate_queryset(queryset, request, view)
        self.request = request
        self.page = self.get_page_number(request)
        self.page_size = self.get_page_size(request)
        self.total = total
        offset = (self.page - 1) * self.page_size
        return list(queryset[offset : offset + self.page_size])

    def get_page_number(self, request) -> int:
        return min(max(PAGING.get(request.query_params, "page"), 1), self.max_page)

    def get_page_size(self, request) -> int:
        size = PAGING.get(request.query_params, "limit")
        return self.default_page_size if size <= 0 else min(size, self.max_page_size)

    def get_schema_operation_parameters(self, view):
        return [
            {"name": name, "in": "query", "required": False, "schema": {"type": "integer"}}
            for name in PAGING.params
        ]

    def _link(self, page: int, rel: str) -> str:
        query = urlencode(sorted(self.page_query(page).items()), doseq=True)
        return f'<{settings.EXTERNAL_URL}{self.request.path}?{query}>; rel="{rel}"'

    def get_links(self) -> str:
        pages = math.ceil(self.total / self.page_size) if self.page_size else 1
        if pages <= 1:
            return ""
        current = min(self.page, pages)
        links = []
        if current * self.page_size < self.total:
            links.append(self._link(current + 1, "next"))
        if current != pages:
            links.append(self._link(pages, "last"))
        if current != 1:
            links.append(self._link(1, "first"))
            links.append(self._link(current - 1, "prev"))
        return ",".join(links)

    def add_headers(self, response) -> None:
        super().add_headers(response)
        exposed = ["Link", "X-Total-Count"] if response.has_header("Link") else ["X-Total-Count"]
        response["Access-Control-Expose-Headers"] = ", ".join(exposed)
