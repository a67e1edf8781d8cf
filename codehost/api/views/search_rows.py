"""The rows of GET /repos/search, from kept statements (config.kept).

Without a keyword, a page is a slice of one statement, its total a kept count when the
search has no filter (`kept_total`). With one, a page is read in two steps: its ids
with the total from one pass over the matches (`kept_keyword_page`), then those ids'
rows, under the caller's visibility rule again: a walk of the name index, counting and
reading every matching row's wide record, cost several times more.
"""

from functools import partial

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from codehost import access
from codehost.api.views.common import repository_rows
from codehost.models import Repository
from codehost.search import KEPT_WORDS, kept_keyword_page, kept_search, kept_total
from config.kept import Kept, KeptList, Totalled, any_id, arg, id_match

# One kept statement per shape of the search's options, for searches of a few keyword
# words: one of many words compiles its own (kept, an anonymous caller's shapes of
# hundreds of words each held hundreds of MiB in every web process).
SEARCH = KeptList(lambda shape: repository_rows(kept_search(shape)))
KEYWORD_PAGES = KeptList(kept_keyword_page)


def _kept_or_own(statements: KeptList, shape) -> KeptList:
    return statements if len(shape.words) <= KEPT_WORDS else KeptList(statements.build)


def _page_rows(visibility: str):
    """The rows of a page's ids that the caller may still see (one made private since the
    ids were read is left out). PostgreSQL looks the ids up by `id = ANY(array)`, an index
    scan of the primary key (`IN (SELECT unnest(..))` was planned as a hash of every
    repository: 0.35 -> 0.12 ms at 1,000); SQLite through the id list."""
    repos = Repository.objects.all()
    visible = access.visibility_condition(visibility, arg("me"))
    if visible is not None:
        repos = repos.filter(visible)
    if connection.vendor == "postgresql":
        ids = RawSQL(
            id_match('"codehost_repository"."id"', connection.vendor), (arg("ids"),), BooleanField()
        )
        return repository_rows(repos.filter(ids))
    return repository_rows(repos.filter(pk__in=any_id("ids")))


# Per visibility kind; prepared on PostgreSQL: one generic plan (a primary key lookup).
PAGE_ROWS = {
    kind: Kept(partial(_page_rows, kind), prepared=True)
    for kind in ("anonymous", "public", "public-or-member", "everything", "visible")
}


def unfiltered_rows(shape, values: dict):
    """A search without a keyword: its rows to slice, carrying a kept total if any."""
    rows = SEARCH.rows(shape, **values)
    total = kept_total(shape)
    return rows if total is None else Totalled(rows, total)


def keyword_page(shape, values: dict, start: int, size: int) -> tuple[list[dict], int]:
    """A keyword search's rows from `start` (at most `size`) and its total. A page past
    the end carries no total: the matches are counted."""
    found = _kept_or_own(KEYWORD_PAGES, shape).rows(shape, **values)[start : start + size]
    if not found:
        window, kept = _kept_or_own(SEARCH, shape).rows(shape, **values), kept_total(shape)
        return [], (window if kept is None else Totalled(window, kept)).count()
    rows = PAGE_ROWS[shape.visibility].rows(ids=[pk for pk, _ in found], me=values["me"])
    by_id = {row["id"]: row for row in rows}
    # A repository deleted or hidden between the two statements is left out.
    return [by_id[pk] for pk, _ in found if pk in by_id], found[0][1]


class ReadPage:
    """A page already read, as the paginator slices it."""

    def __init__(self, rows: list):
        self.rows = rows

    def __getitem__(self, bounds: slice) -> list:
        return self.rows
