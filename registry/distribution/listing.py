"""Tag and catalog lists: lexical order, `n`/`last` paging and the `Link` to the next page."""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import JsonResponse

from config.limits import INT64_MAX, go_int
from registry.distribution.errors import NameUnknown, PaginationNumberInvalid
from registry.models import Repository, Tag

# When the client gives no `n`, this many entries at most (the CNCF registry's default is
# unbounded for tags; a bound keeps one request cheap, and Link gives the rest).
DEFAULT_PAGE = 1000
MAX_PAGE = 10000


@dataclass
class Page:
    items: list[str]
    size: int
    has_more: bool


def _size(n: str | None) -> int:
    if n is None or n == "":
        return DEFAULT_PAGE
    size = go_int(n)
    if size is None:
        raise PaginationNumberInvalid("n must be an integer", detail={"n": n})
    if size < 0:
        raise PaginationNumberInvalid("n must not be negative", detail={"n": n})
    if size > INT64_MAX:
        # Past int64, where Distribution's parse of `n` fails.
        raise PaginationNumberInvalid("n is out of range", detail={"n": n})
    return min(size, MAX_PAGE)


def _page(values, size: int, last: str) -> Page:
    # No name holds a NUL (nor can PostgreSQL compare text with one): the names after
    # `last` are those after the part before it.
    last = last.partition("\x00")[0]
    if last:
        values = values.filter(name__gt=last)
    if size == 0:
        return Page([], 0, False)
    rows = list(values.order_by("name").values_list("name", flat=True)[: size + 1])
    return Page(rows[:size], size, len(rows) > size)


def tags(repository_name: str, n: str | None, last: str) -> Page:
    repository = Repository.objects.filter(name=repository_name).first()
    if repository is None:
        raise NameUnknown(detail={"name": repository_name})
    return _page(Tag.objects.filter(repository=repository), _size(n), last)


def catalog(n: str | None, last: str) -> Page:
    return _page(Repository.objects.all(), _size(n), last)


def page_response(request, body: dict, page: Page) -> JsonResponse:
    response = JsonResponse(body)
    if page.has_more:
        query = urlencode({"last": page.items[-1], "n": page.size})
        response["Link"] = f'<{request.path}?{query}>; rel="next"'
    return response
