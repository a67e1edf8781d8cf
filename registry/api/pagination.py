import re
from urllib.parse import quote, unquote, urlencode

from rest_framework.exceptions import APIException

from config.pagination import HeaderPagination


class UnprocessableEntity(APIException):
    status_code = 422
    default_detail = "validation failure"
    default_code = "UNPROCESSABLE_ENTITY"


MAX_PAGE = 2**40
NOT_PRINTABLE_ASCII = re.compile("[^\x20-\x7e]")


class HarborPagination(HeaderPagination):
    """Harbor paging: `page_size` default 10, over 100 is 422, 0 or less means no limit.

    Link entries are relative, with the query keys sorted and unescaped, joined by " , ".
    """

    page_size_query_param = "page_size"
    default_page_size = 10
    max_page_size = 100

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.default_page_size
        try:
            size = int(raw)
        except ValueError as exc:
            raise UnprocessableEntity(
                f'validation failure list:\npage_size in query must be of type int64: "{raw}"'
            ) from exc
        if size > self.max_page_size:
            raise UnprocessableEntity(
                "validation failure list:\npage_size in query should be less than or equal to 100"
            )
        return size if size > 0 else None

    def get_page_number(self, request):
        raw = request.query_params.get(self.page_query_param)
        if raw is None or raw == "":
            return 1
        try:
            # Beyond this no table has rows; the bound keeps OFFSET within int64.
            return min(max(int(raw), 1), MAX_PAGE)
        except ValueError as exc:
            raise UnprocessableEntity(
                f'validation failure list:\npage in query must be of type int64: "{raw}"'
            ) from exc

    def _link(self, page: int) -> str:
        params = self.page_query(page, page_size=self.page_size)
        query = unquote(urlencode(sorted(params.items()), doseq=True))
        # Unescaped, a CR or LF of the caller's would break the header: Go writes a space.
        query = query.replace("\r", " ").replace("\n", " ")
        # Other control characters are no header bytes (gunicorn refused the response),
        # and past ASCII Django would send the whole value MIME-encoded (no client reads
        # a link there): both stay percent-encoded (UTF-8), so following the link sends
        # the same query.
        query = NOT_PRINTABLE_ASCII.sub(lambda match: quote(match[0], safe=""), query)
        return f"<{self.request.path}?{query}>"

    def get_links(self) -> str:
        if self.page_size is None:
            return ""
        links = []
        if self.page > 1 and (self.page - 1) * self.page_size < self.total:
            links.append(f'{self._link(self.page - 1)}; rel="prev"')
        if self.page * self.page_size < self.total:
            links.append(f'{self._link(self.page + 1)}; rel="next"')
        return " , ".join(links)
