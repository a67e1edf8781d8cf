"""Querysets compiled once per process and database, then run with each call's values.

Composing and compiling a queryset cost the ORM more CPU than the database spent running
the small queries around a request (a token with its account, a list's count and page,
the caller's grants on a page): about 1 ms each, against 0.1 ms of SQL. A `Kept` queryset
is built with *markers* where a call's values go, compiled on its first run per database,
and run after that with the values put where its markers were. A marker is recognised by
its type, never by its value, so a constant the query holds is never taken for one:

- `arg(name)`: a text (a `str` of its own type, whose text holds NUL and a token drawn
  per process, which no other text holds): a text field's value, a RawSQL parameter, or
  inside a LIKE pattern (`__contains=arg(..)`), where the value goes in escaped as Django
  escapes it;
- `value(name)`: where the field would refuse a text (an id, a number): a bare `%s`;
- `any_id(name)`: `pk__in=any_id("ids")`, a list of ids bound as one parameter
  (`unnest(%s::bigint[])` on PostgreSQL, `json_each(%s)` on SQLite): the same statement
  for a page of 50 ids as for 3.

Rows pass through Django's converters (`config.row_builder`): `.values()` gives dicts,
`.values_list()` tuples, as the ORM would.
"""

import re
import secrets
from collections.abc import Callable

import orjson
from django.core.exceptions import EmptyResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Value
from django.db.models.expressions import RawSQL
from django.db.models.query import FlatValuesListIterable, ValuesIterable

from config import prepared as prepared_statements
from config.row_builder import converter, row_builder

# Inside a LIKE pattern a marker is a plain `str`: it is known by this text, which no
# value a request sends can hold.
_TAG = f"\0kept{secrets.token_hex(8)}:"
_MARKER = re.compile(f"{_TAG}([^\0]*)\0")


class arg(str):  # lower case: written where a value goes, in filters
    """The marker of the value `name`. A `str` so that a text field's lookup keeps it."""

    def __new__(cls, name: str):
        return super().__new__(cls, f"{_TAG}{name}\0")

    def __init__(self, name: str):
        self.name = name

    def __getnewargs__(self):  # a copied query keeps the same marker
        return (self.name,)


class value(Value):  # lower case: written where a value goes, in filters
    """`project_id=value("project")`: the value `name` where the field would refuse a
    text; `%s` as a plain value is written (a `Value` is not put in parentheses)."""

    def __init__(self, name: str):
        super().__init__(arg(name))

    def as_sql(self, compiler, connection):
        return "%s", [self.value]


class _IdList(arg):
    """Rewritten per vendor when compiled: PostgreSQL takes an array, SQLite JSON text."""


def any_id(name: str) -> RawSQL:
    """`pk__in=any_id("ids")`: the ids given to the run under `name`, as one parameter."""
    return RawSQL("%s", (_IdList(name),))


def id_list(ids, vendor: str):
    """`ids` as the one parameter of an id-list subquery (see `any_id`)."""
    return list(ids) if vendor == "postgresql" else orjson.dumps(list(ids)).decode()


def id_subquery(vendor: str) -> str:
    """The subquery of the ids bound as its one parameter (see `id_list`)."""
    if vendor == "postgresql":
        return "SELECT unnest(%s::bigint[])"
    return "SELECT value FROM json_each(%s)"


def id_match(column: str, vendor: str) -> str:
    """SQL: `column` is one of the ids bound as its one parameter (see `id_list`).
    PostgreSQL finds each through an index (`= ANY(array)`; `IN (SELECT unnest(...))` was
    planned as a hash of every row, and scanned the table under a prepared statement's
    generic plan)."""
    if vendor == "postgresql":
        return f"{column} = ANY(%s::bigint[])"
    return f"{column} IN ({id_subquery(vendor)})"


class Statement:
    """A `.values()` or `.values_list()` queryset compiled: `run(values)` its rows.
    `rewrite(sql, params)` changes what runs (a count, a page)."""

    prepared = False  # run as a prepared statement on PostgreSQL (config.prepared)

    def __init__(self, queryset, alias: str, rewrite: Callable | None = None, rows=True):
        query = queryset.query
        compiler = query.get_compiler(alias)
        sql, params = compiler.as_sql()
        if rewrite is not None:
            sql, params = rewrite(sql, params)
        connection = compiler.connection
        self.alias = alias
        self.sql = _expand_id_lists(sql, params, connection.vendor)
        self.binders = [_binder(param, connection) for param in params]
        self.build = None
        if rows:
            columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
            converters = {
                position: converter(chain, expression, connection)
                for position, (chain, expression) in compiler.get_converters(columns).items()
            }
            names = list(query.selected)
            assert len(names) == len(columns), "a kept queryset is a .values() one"
            iterable = queryset._iterable_class
            self.build = row_builder(names, converters, as_dict=iterable is ValuesIterable)
            if iterable is FlatValuesListIterable:
                build = self.build
                self.build = lambda record: build(record)[0]

    def run(self, values: dict) -> list:
        params = [bind(values) for bind in self.binders]
        connection = connections[self.alias]
        with (
            prepared_statements.cursor(connection=connection)
            if self.prepared
            else connection.cursor() as cursor
        ):
            cursor.execute(self.sql, params)
            fetched = cursor.fetchall()
        return fetched if self.build is None else list(map(self.build, fetched))


def read(queryset) -> list:
    """The rows of `queryset` (no markers), compiled for this run: for SQL that depends on
    the call's own values."""
    try:
        return Statement(queryset, queryset.db).run({})
    except EmptyResultSet:
        return []


class _NoRows:
    """The statement of a queryset Django runs no query for: it gives no rows."""

    def run(self, values: dict) -> list:
        return []


_NO_ROWS = _NoRows()
_LIMIT, _OFFSET = arg("limit"), arg("offset")  # a page's bounds


class Kept:
    """`build()` gives a `.values()` or `.values_list()` queryset with markers, compiled
    on first use per database: `rows(**values)` every row, `bind(**values)` what the
    paginator counts and slices.

    `ids_first`: a page selects its rows' ids first (sorted and cut in a subquery), then
    their columns. SQLite otherwise computes every selected column (correlated counts
    among them) of every matching row before it sorts them and keeps a page.
    `plain_count`: the count is `SELECT COUNT(*)` over the statement's own FROM and WHERE,
    as Django's `count()` writes it; else, and always for a statement with DISTINCT or
    GROUP BY (which the plain form would miscount), over its select of ids. Both plan
    alike. `prepared`: run as prepared statements on PostgreSQL (config.prepared), for
    the statements every request of a service runs. Markers may not be named `limit` or
    `offset`: a page's bounds."""

    def __init__(
        self,
        build: Callable,
        ids_first: bool = False,
        plain_count: bool = True,
        prepared: bool = False,
    ):
        self.build = build
        self.prepared = prepared
        self.ids_first = ids_first
        self.plain_count = plain_count
        self._statements: dict[tuple, Statement] = {}

    def _statement(self, alias: str, kind: str) -> Statement:
        statement = self._statements.get((alias, kind))
        if statement is None:
            try:
                statement = getattr(self, f"_{kind}")(alias)
                statement.prepared = self.prepared
            except EmptyResultSet:  # a filter Django knows matches nothing (`pk__in=[]`)
                statement = _NO_ROWS
            self._statements[alias, kind] = statement
        return statement

    def _rows(self, alias: str) -> Statement:
        return Statement(self.build(), alias)

    def _count(self, alias: str) -> Statement:
        queryset = self.build().order_by().values("pk")
        query = queryset.query
        plain = self.plain_count and not query.distinct and query.group_by is None

        def count(sql, params):
            if not plain:
                return f"SELECT COUNT(*) FROM ({sql}) counted", params
            select, found, rest = sql.partition(" FROM ")
            if not found or "SELECT" in select[len("SELECT") :]:
                raise ValueError(f"not a plain select: {sql}")
            return f"SELECT COUNT(*) FROM {rest}", params

        return Statement(queryset, alias, count, rows=False)

    def _page(self, alias: str) -> Statement:
        queryset = self.build()
        if self.ids_first and not queryset.query.distinct:
            ids_sql, ids = queryset.values_list("pk").query.get_compiler(alias).as_sql()
            bounds = RawSQL(f"{ids_sql} LIMIT %s OFFSET %s", (*ids, _LIMIT, _OFFSET))
            return Statement(queryset.filter(pk__in=bounds), alias)
        return Statement(
            queryset,
            alias,
            lambda sql, params: (f"{sql} LIMIT %s OFFSET %s", [*params, _LIMIT, _OFFSET]),
        )

    def rows(self, alias: str = DEFAULT_DB_ALIAS, **values) -> list:
        return self._statement(alias, "rows").run(values)

    def bind(self, alias: str = DEFAULT_DB_ALIAS, **values) -> "Window":
        return Window(self, alias, values)


class Window:
    """A kept queryset with its values, as the paginator uses a queryset: `count()`,
    `[start:stop]`; iterating gives every row."""

    def __init__(self, kept: Kept, alias: str, values: dict):
        self.kept, self.alias, self.values = kept, alias, values

    def count(self) -> int:
        counted = self.kept._statement(self.alias, "count").run(self.values)
        return counted[0][0] if counted else 0  # no row: a statement of no rows

    def __getitem__(self, bounds: slice) -> list:
        start = bounds.start or 0
        values = {**self.values, _LIMIT.name: bounds.stop - start, _OFFSET.name: start}
        return self.kept._statement(self.alias, "page").run(values)

    def __iter__(self):
        return iter(self.kept.rows(self.alias, **self.values))


class Totalled:
    """A window whose count is the sum of `counts`' rows (say counts per owner, kept by
    triggers) rather than a count of the window's own rows; `counts` takes its values."""

    def __init__(self, window: Window, counts: Kept):
        self.window, self.counts = window, counts

    def count(self) -> int:
        return sum(n for (n,) in self.counts.rows(self.window.alias, **self.window.values))

    def __getitem__(self, bounds: slice) -> list:
        return self.window[bounds]

    def __iter__(self):
        return iter(self.window)


MAX_SHAPES = 256


class KeptList:
    """Kept querysets per *shape*: whatever changes the SQL besides the markers (who
    looks, which filters apply). `build(shape)` gives the shape's queryset; `rows(shape,
    **values)` is what the paginator counts and slices."""

    def __init__(self, build: Callable | None = None, ids_first=False, plain_count=True):
        self.build = build
        self.options = {"ids_first": ids_first, "plain_count": plain_count}
        self._shapes: dict = {}

    def kept(self, shape, build: Callable | None = None) -> Kept:
        """The kept queryset of `shape`: `build()` if given, else `self.build(shape)`."""
        found = self._shapes.get(shape)
        if found is None:
            found = Kept(build or (lambda: self.build(shape)), **self.options)
            # Shapes come from requests (a search's number of words): past the limit a new
            # one is compiled for its request only, so memory stays bounded.
            if len(self._shapes) < MAX_SHAPES:
                self._shapes[shape] = found
        return found

    def rows(self, shape, **values) -> Window:
        return self.kept(shape).bind(**values)


_kept = {flag: KeptList(ids_first=flag, plain_count=False) for flag in (False, True)}


def kept(key: tuple | None, build: Callable, ids_first: bool = False) -> Kept:
    """The queryset of `build()` kept under `key`, which names everything its SQL depends
    on besides the markers; compiled for this call only when `key` is None. Counted over
    its select of ids (the registry's lists, which these are, always counted so)."""
    if key is None:
        return Kept(build, ids_first, plain_count=False)
    return _kept[ids_first].kept(key, build)


def _expand_id_lists(sql: str, params, vendor: str) -> str:
    """Each id-list marker's `%s` (its RawSQL is exactly that) becomes a subquery over it."""
    if not any(isinstance(param, _IdList) for param in params):
        return sql
    pieces = re.split("(%%|%s)", sql)
    found = iter(params)
    for position, piece in enumerate(pieces):
        if piece == "%s" and isinstance(next(found), _IdList):
            pieces[position] = id_subquery(vendor)
    return "".join(pieces)


def _unescaped(name: str) -> str:
    return re.sub(r"\\(.)", r"\1", name)


def _binder(param, connection) -> Callable:
    """`bind(values)`: the parameter of a run."""
    name = getattr(param, "name", None)
    if isinstance(param, _IdList):
        vendor = connection.vendor
        return lambda values: id_list(values[name], vendor)
    if isinstance(param, arg):
        return lambda values: values[name]
    if isinstance(param, str) and _TAG in param:
        # A LIKE pattern around a marker (`__contains=arg(...)`), escaped (its name too):
        # the value goes in escaped as Django escapes it.
        escape = connection.ops.prep_for_like_query

        def bind(values):
            return _MARKER.sub(lambda found: escape(values[_unescaped(found[1])]), param)

        return bind
    return lambda values: param


class KeptInstances(Kept):
    """Instances of `model` with forward or one-to-one relations along `related` loaded
    (as `select_related(*related)` would) from one kept query; `narrow(queryset)` filters
    it with markers. `answer`: the related path whose instances are answered, the model's
    own columns then left out of the query."""

    def __init__(
        self,
        model,
        related: tuple[str, ...],
        narrow: Callable,
        answer: str = "",
        prepared: bool = False,
    ):
        self.layout = []
        self.answer = answer
        columns = []
        for path in related if answer else ("", *related):
            target, link = model, None
            for part in filter(None, path.split("__")):
                link = target._meta.get_field(part)
                target = link.related_model
            names = [field.attname for field in target._meta.concrete_fields]
            key = names.index(target._meta.pk.attname)
            parent = path.rpartition("__")[0] if "__" in path else ""
            self.layout.append((path, target, names, key, len(columns), parent, link))
            columns += [f"{path}__{name}" if path else name for name in names]
        super().__init__(
            lambda: narrow(model._default_manager.values_list(*columns)), prepared=prepared
        )

    def all(self, alias: str = DEFAULT_DB_ALIAS, **values) -> list:
        return [self._instance(row, alias) for row in self.rows(alias, **values)]

    def first(self, alias: str = DEFAULT_DB_ALIAS, **values):
        found = self.rows(alias, **values)
        return self._instance(found[0], alias) if found else None

    def _instance(self, row, alias: str):
        built = {}
        for path, target, names, key, start, parent, link in self.layout:
            values = row[start : start + len(names)]
            # A LEFT JOIN that found nothing reads every column as NULL, the key included.
            instance = None if values[key] is None else target.from_db(alias, names, values)
            built[path] = instance
            owner = built.get(parent) if path else None
            if owner is None:
                continue
            link.set_cached_value(owner, instance)
            if instance is not None and link.one_to_one:
                # Both sides of a one-to-one, as select_related leaves them.
                other = link.remote_field if link.concrete else link.field
                other.set_cached_value(instance, owner)
        return built[self.answer]
