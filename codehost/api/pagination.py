import math
from urllib.parse import urlencode

from django.conf import settings

from codehost.errors import Invalid
from config.limits import INT32_MAX, INT64_MAX, INT64_MIN
from config.pagination import HeaderPagination


class GiteaPagination(HeaderPagination):
    """Gitea paging: `limit` default 30, silently capped at 50.

    Link entries are absolute, in the order next, last, first, prev, joined by ",".
    """

    page_size_query_param = "limit"
    default_page_size = 30
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
        return min(max(self._integer(request, self.page_query_param, 1), 1), self.max_page)

    def get_page_size(self, request) -> int:
        size = self._integer(request, self.page_size_query_param, self.default_page_size)
        return self.default_page_size if size <= 0 else min(size, self.max_page_size)

    @staticmethod
    def _integer(request, name: str, default: int) -> int:
        """A query integer; anything else is refused rather than silently replaced."""
        values = request.query_params.getlist(name)
        if not values:
            return default
        try:
            number = int(values[-1])
        except ValueError as exc:
            raise Invalid(f"[{name}]: must be an integer") from exc
        # Gitea parses paging as int64: beyond it is an error, not the last page.
        if not INT64_MIN <= number <= INT64_MAX:
            raise Invalid(f"[{name}]: value out of range")
        return number

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
