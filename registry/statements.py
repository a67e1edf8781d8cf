"""List statements compiled once per process instead of on every request.

Django composes and compiles a list's querysets (its count and its page) on every
request; for the registry's lists that cost more CPU than the database spent running
them. A `Statement` is a `.values()` queryset compiled once, then run with each request's
values put where the queryset held *markers*: ints from a reserved range (`mark(slot)`),
written as filter values or as the one parameter of `ids_in` (a list of ids bound as one
value, so the SQL is the same whatever the list's length), and texts holding NUL
(`mark_text(slot)`). Both are drawn at random per process: a statement compiled for one
request also holds that request's own filter values, and one equal to a published marker
would be taken for it (its slot's value put in its place, or a 500). `kept(key, build)`
keeps a statement per database and key; the key must name everything the built SQL
depends on besides the markers (a request whose SQL depends on its own filter values
passes no key and compiles its statement itself; filters Django knows match nothing, as
`pk__in=[]`, give a statement of no rows).
"""

import secrets
from collections.abc import Callable

import orjson
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models.expressions import RawSQL

from config.row_builder import row_builder

# Far below any id, count or flag a statement is built with, and unknown to a caller.
_MARKS = -(2**62) - secrets.randbelow(2**60)
_TEXT = f"\x00mark{secrets.token_hex(8)}:"
_SLOTS = 16


def mark(slot: int) -> int:
    """The marker of the request value `slot` (0 to 15)."""
    return _MARKS - slot


def mark_text(slot: int) -> str:
    """The marker of the request text `slot`; inside a longer parameter it is a LIKE
    pattern's (Django's contains lookups), and the text is escaped there as Django does."""
    return f"{_TEXT}{slot}\x00"


def ids_in(slot: int, alias: str = "default") -> RawSQL:
    """A subquery of the ids bound as request value `slot` (see `Statement.bind`): the
    same SQL for any number of ids (an IN list's length changes the statement)."""
    if connections[alias].vendor == "postgresql":
        return RawSQL("SELECT unnest(%s::bigint[])", (mark(slot),))
    return RawSQL("SELECT value FROM json_each(%s)", (mark(slot),))


_LIMIT, _OFFSET = _SLOTS - 2, _SLOTS - 1  # a page's bounds, in `ids_first` statements


class Statement:
    """A `.values()` (or `.values_list()`) queryset compiled once: its rows, its count.

    `ids_first`: a page selects its rows' ids first (sorted and cut in a subquery), then
    their columns. SQLite otherwise computes every selected column (correlated counts
    among them) of every matching row before it sorts them and keeps a page."""

    def __init__(self, queryset, ids_first: bool = False):
        query = queryset.query
        compiler = query.get_compiler(queryset.db)
        self.alias = queryset.db
        self.vendor = connections[self.alias].vendor
        self.sql, params = compiler.as_sql()
        columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
        connection = connections[self.alias]
        converters = {
            position: _chain(chain, expression, connection)
            for position, (chain, expression) in compiler.get_converters(columns).items()
        }
        # Django 5.2 keeps the order values() named (fields and annotations mixed).
        names = list(query.selected or ())
        assert len(names) == len(columns), "a statement reads a .values() queryset"
        flat = queryset._iterable_class.__name__ != "ValuesIterable"
        self.build = row_builder(names, converters, as_dict=not flat)
        count_sql, count_params = (
            queryset.order_by().values("pk").query.get_compiler(queryset.db).as_sql()
        )
        self.count_sql = f"SELECT COUNT(*) FROM ({count_sql}) counted"
        self.params, self.slots = _slots(params)
        self.count_params, self.count_slots = _slots(count_params)
        self.page_sql = f"{self.sql} LIMIT %s OFFSET %s"
        self.page_params, self.page_slots = _slots((*params, mark(_LIMIT), mark(_OFFSET)))
        if ids_first and not query.distinct:
            ids_sql, ids_params = queryset.values_list("pk").query.get_compiler(self.alias).as_sql()
            bounds = (*ids_params, mark(_LIMIT), mark(_OFFSET))
            page = queryset.filter(pk__in=RawSQL(f"{ids_sql} LIMIT %s OFFSET %s", bounds))
            self.page_sql, page_params = page.query.get_compiler(self.alias).as_sql()
            self.page_params, self.page_slots = _slots(page_params)

    def bind(self, *values) -> "Bound":
        """The statement with the request's values (slot order); id lists as lists."""
        values = tuple(
            orjson.dumps(v).decode() if isinstance(v, list) and self.vendor != "postgresql" else v
            for v in values
        )
        return Bound(self, values)


class Bound:
    """A statement with its values: what a paginator takes for a queryset (`count()`,
    slicing), and iterable for every row."""

    def __init__(self, statement: Statement, values: tuple):
        self.statement = statement
        self.values = values

    def _params(self, params: tuple, slots: list[tuple[int, int]], bounds=None) -> list:
        params = list(params)
        for position, slot in slots:
            value = bounds[slot] if slot in (_LIMIT, _OFFSET) else self.values[slot]
            marker = params[position]
            if type(marker) is str and marker != mark_text(slot):
                connection = connections[self.statement.alias]
                value = marker.replace(mark_text(slot), connection.ops.prep_for_like_query(value))
            params[position] = value
        return params

    def _run(self, sql: str, params: list) -> list:
        with connections[self.statement.alias].cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def count(self) -> int:
        statement = self.statement
        params = self._params(statement.count_params, statement.count_slots)
        return self._run(statement.count_sql, params)[0][0]

    def __getitem__(self, window: slice) -> list:
        statement = self.statement
        bounds = {_LIMIT: window.stop - window.start, _OFFSET: window.start}
        params = self._params(statement.page_params, statement.page_slots, bounds)
        return list(map(statement.build, self._run(statement.page_sql, params)))

    def __iter__(self):
        statement = self.statement
        params = self._params(statement.params, statement.slots)
        return iter(list(map(statement.build, self._run(statement.sql, params))))


_kept: dict[tuple, Statement] = {}


def kept(key: tuple | None, build: Callable, ids_first: bool = False) -> Statement:
    """The statement of `build()` (a queryset), compiled once per database and `key`; each
    time when `key` is None."""
    if key is None:
        return _compiled(build, ids_first)
    key = (connections["default"].vendor, *key)
    statement = _kept.get(key)
    if statement is None:
        statement = _kept[key] = _compiled(build, ids_first)
    return statement


def _compiled(build: Callable, ids_first: bool):
    try:
        return Statement(build(), ids_first)
    except EmptyResultSet:  # Django's queryset would run no query and give no rows
        return _NOTHING


class _Nothing:
    """A statement (and its binding) of no rows."""

    def bind(self, *values) -> "_Nothing":
        return self

    def count(self) -> int:
        return 0

    def __getitem__(self, window: slice) -> list:
        return []

    def __iter__(self):
        return iter(())


_NOTHING = _Nothing()


def _slots(params) -> tuple[tuple, list[tuple[int, int]]]:
    slots = []
    for position, value in enumerate(params):
        if type(value) is int and _MARKS - _SLOTS < value <= _MARKS:
            slots.append((position, _MARKS - value))
        elif type(value) is str and _TEXT in value:
            slots += [(position, n) for n in range(_SLOTS) if mark_text(n) in value]
    return tuple(params), slots


def _chain(chain, expression, connection) -> Callable:
    def convert(value):
        for step in chain:
            value = step(value, expression, connection)
        return value

    return convert
