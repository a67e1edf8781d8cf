"""Queries every request runs, compiled once per process and database.

Composing and compiling a queryset cost the ORM more CPU than the database spent running
the small queries around a list (the token with its account and namespace, the repository
of the path with its owner, the caller's grants on a page): about 1 ms each, against
0.1 ms of SQL. A `Kept` query is built and compiled on its first run; what changes from
call to call is written into it as markers (`arg(name)`: a text compared with `=`, or any
value inside a RawSQL; `any_id(name)`: a list of ids bound as one parameter), which each
run replaces. Fetched values pass through Django's own converters, so rows and instances
are what the ORM would have built.
"""

import re
from collections.abc import Callable

import orjson
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.expressions import RawSQL
from django.db.models.query import ValuesIterable


class arg(str):  # lower case: written where a value goes, in filters
    """A marker for a per-run value. A `str` so that a text field's lookup keeps it as is."""

    def __new__(cls, name: str):
        return super().__new__(cls, f"\0kept:{name}\0")

    def __init__(self, name: str):
        self.name = name


def value(name: str) -> RawSQL:
    """`owner_id=value("owner")`: a per-run value where the field would refuse a marker."""
    return RawSQL("%s", (arg(name),))


def any_id(name: str) -> RawSQL:
    """`pk__in=any_id("ids")`: the ids given to the run under that name, as one parameter
    (a query of 50 ids is not compiled anew for each page)."""
    return RawSQL("%s", (_IdList(name),))


class _IdList(arg):
    """Rewritten per vendor when compiled: PostgreSQL takes an array, SQLite JSON text."""


def _id_subquery(vendor: str) -> str:
    if vendor == "postgresql":
        return "SELECT unnest(%s::bigint[])"
    return "SELECT value FROM json_each(%s)"


class Kept:
    """`build()` gives a `.values_list()` or `.values()` queryset with its markers;
    `rows(**values)` runs it and answers its converted tuples, or dicts for `.values()`."""

    def __init__(self, build: Callable):
        self.build = build
        self._compiled: dict[str, tuple] = {}

    def _sql(self, sql: str, params: list) -> tuple[str, list]:
        """What runs, of the compiled statement (subclasses rewrite it)."""
        return sql, params

    def _compile(self, alias: str) -> tuple:
        queryset = self.build()
        compiler = queryset.query.get_compiler(alias)
        sql, params = self._sql(*compiler.as_sql())
        sql = _expand_id_lists(sql, params, compiler.connection.vendor)
        expressions = [selected[0] for selected in compiler.select[: compiler.col_count]]
        converters = [
            (position, chain, expression)
            for position, (chain, expression) in compiler.get_converters(expressions).items()
        ]
        query = queryset.query
        names = None
        if issubclass(queryset._iterable_class, ValuesIterable):
            names = (*query.extra_select, *query.values_select, *query.annotation_select)
        compiled = (sql, [_binder(param) for param in params], converters, names)
        self._compiled[alias] = compiled
        return compiled

    def rows(self, alias: str = DEFAULT_DB_ALIAS, **values) -> list:
        sql, params, converters, names = self._compiled.get(alias) or self._compile(alias)
        connection = connections[alias]
        bound = tuple(bind(values, connection) for bind in params)
        with connection.cursor() as cursor:
            cursor.execute(sql, bound)
            fetched = cursor.fetchall()
        if converters:
            fetched = [_converted(row, converters, connection) for row in fetched]
        if names is None:
            return fetched
        return [dict(zip(names, row, strict=True)) for row in fetched]


def _converted(row, converters, connection) -> list:
    row = list(row)
    for position, chain, expression in converters:
        value = row[position]
        for convert in chain:
            value = convert(value, expression, connection)
        row[position] = value
    return row


class _KeptCount(Kept):
    """The number of rows of `build()`'s queryset: its statement with the select list
    replaced by COUNT(*) (ordering dropped), as Django's `count()` writes it."""

    def __init__(self, build: Callable):
        super().__init__(lambda: build().order_by().values_list("pk"))

    def _sql(self, sql: str, params: list) -> tuple[str, list]:
        select, found, rest = sql.partition(" FROM ")
        if not found or "SELECT" in select[len("SELECT") :]:
            raise ValueError(f"not a plain select: {sql}")
        return f"SELECT COUNT(*) FROM {rest}", params


class _KeptWindow(Kept):
    """`build()`'s rows from `offset`, at most `limit` of them."""

    def _sql(self, sql: str, params: list) -> tuple[str, list]:
        return f"{sql} LIMIT %s OFFSET %s", [*params, arg("limit"), arg("offset")]


class KeptList:
    """A list's count and pages, compiled once per shape: `build(shape)` gives the ordered
    queryset with its markers, `shape` being whatever changes its SQL (who looks, which
    filters apply); `rows(shape, **values)` is what the paginator counts and slices."""

    def __init__(self, build: Callable):
        self.build = build
        self._shapes: dict = {}

    def rows(self, shape, **values) -> "Window":
        kept = self._shapes.get(shape)
        if kept is None:
            build = lambda: self.build(shape)  # noqa: E731
            kept = self._shapes[shape] = (_KeptCount(build), _KeptWindow(build))
        return Window(*kept, values)


class Window:
    """A kept list as the paginator uses a queryset: `count()` and `[start:stop]`."""

    def __init__(self, count: Kept, window: Kept, values: dict):
        self._count, self._window, self.values = count, window, values

    def count(self) -> int:
        return self._count.rows(**self.values)[0][0]

    def __getitem__(self, bounds: slice) -> list:
        start = bounds.start or 0
        return self._window.rows(**self.values, offset=start, limit=bounds.stop - start)


def _expand_id_lists(sql: str, params, vendor: str) -> str:
    """Each id-list marker's `%s` (its RawSQL is exactly that) becomes a subquery over it."""
    if not any(isinstance(param, _IdList) for param in params):
        return sql
    pieces = sql.split("%s")
    out = [pieces[0]]
    for param, piece in zip(params, pieces[1:], strict=True):
        out.append(_id_subquery(vendor) if isinstance(param, _IdList) else "%s")
        out.append(piece)
    return "".join(out)


_MARKER = re.compile("\0kept:([^\0]*)\0")


def _binder(param) -> Callable:
    """`bind(values, connection)`: the parameter of a run."""
    if isinstance(param, _IdList):
        name = param.name
        return lambda values, connection: (
            list(values[name])
            if connection.vendor == "postgresql"
            else orjson.dumps(list(values[name])).decode()
        )
    if isinstance(param, arg):
        return lambda values, connection: values[param.name]
    if isinstance(param, str) and "\0kept:" in param:
        # A LIKE pattern around a marker (`__contains=arg(...)`): the value goes in escaped
        # as Django escapes it.
        def bind(values, connection):
            escape = connection.ops.prep_for_like_query
            return _MARKER.sub(lambda found: escape(values[found.group(1)]), param)

        return bind
    return lambda values, connection: param


class KeptInstances(Kept):
    """Instances of `model` with forward or one-to-one relations along `related` loaded
    (as `select_related(*related)` would) from one kept query; `narrow(queryset)` filters
    it with markers."""

    def __init__(self, model, related: tuple[str, ...], narrow: Callable):
        self.layout = []
        columns = []
        for path in ("", *related):
            target, link = model, None
            for part in filter(None, path.split("__")):
                link = target._meta.get_field(part)
                target = link.related_model
            names = [field.attname for field in target._meta.concrete_fields]
            key = names.index(target._meta.pk.attname)
            parent = path.rpartition("__")[0] if "__" in path else ""
            self.layout.append((path, target, names, key, len(columns), parent, link))
            columns += [f"{path}__{name}" if path else name for name in names]
        super().__init__(lambda: narrow(model._default_manager.values_list(*columns)))

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
        return built[""]
