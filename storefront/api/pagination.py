import math
from urllib.parse import urlencode

from config.pagination import HeaderPagination


class TiendanubePagination(HeaderPagination):
    """Tiendanube paging: `per_page` default 30, max 200; Link entries absolute,
    in the order next, last, first, prev, joined by ", "."""

    page_size_query_param = "per_page"
    default_page_size = 30
    max_page_size = 200

    def _link(self, page: int, rel: str) -> str:
        query = urlencode(list(self.page_query(page).items()), doseq=True)
        url = self.request.build_absolute_uri(self.request.path)
        return f'<{url}?{query}>; rel="{rel}"'

    def get_links(self) -> str:
        pages = max(math.ceil(self.total / self.page_size), 1)
        links = []
        if self.page < pages:
            links.append(self._link(self.page + 1, "next"))
            links.append(self._link(pages, "last"))
        if self.page > 1:
            links.append(self._link(1, "first"))
            links.append(self._link(min(self.page - 1, pages), "prev"))
        return ", ".join(links)
