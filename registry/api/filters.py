"""Harbor's `q` query language and `sort` parameter (harbor.md §5), turned into ORM terms.

q = comma-separated clauses `key=value`; the value's first character picks the operator:
`~v` fuzzy, `[a~b]` range, `{a b}` any of, `(a b)` all of, else exact (`\\` escapes it).
Unknown keys and sort fields are ignored, as Harbor does.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import unquote

from django.db.models import Q, QuerySet

from config.filters import Param, QueryFilters
from config.limits import INT64_MAX, INT64_MIN
from registry.errors import BadRequest

# One `key=value` clause: the value is exact, `~fuzzy`, a `[min~max]` range (a bound may be
# empty, not both), an `{any of}` or an `(all of)` list. White space is spelled out because
# JSON Schema validators read "\s" differently from Python.
_SPACE = " \t\n\r\f\v"
_Q_VALUE = (
    rf"(?:~[^,%~]+|\[[^,%~\]]*[^,%~\]{_SPACE}][^,%~\]]*~[^,%~\]]*\]"
    rf"|\[[^,%~\]]*~[^,%~\]]*[^,%~\]{_SPACE}][^,%~\]]*\]"
    r"|\{[^,%]*\}|\([^,%]*\)|\\[^,%]*|[^,%~\[{(\\][^,%]*)"
)
_Q_CLAUSE = rf"[A-Za-z_][A-Za-z0-9_]*={_Q_VALUE}"
# The whole q (published in the schema between ^ and $).
Q_PATTERN = rf"(?:{_Q_CLAUSE}(?:,{_Q_CLAUSE})*)?"
MISSING_EQUALS = 'the query string must contain "=" and the key/value cannot be empty'


@dataclass(frozen=True)
class Exact:
    value: object


@dataclass(frozen=True)
class Fuzzy:
    value: str


@dataclass(frozen=True)
class Range:
    low: object
    high: object


@dataclass(frozen=True)
class AnyOf:
    values: tuple


@dataclass(frozen=True)
class AllOf:
    values: tuple


def _typed(raw: str):
    """Range and list elements: a `2006-01-02T15:04:05` time, then an int, then a string."""
    raw = raw.strip()
    try:
        return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        pass
    try:
        return int(raw)
    except ValueError:
        pass
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw


def parse_value(raw: str):
    if raw.startswith("\\"):
        return Exact(raw[1:])
    if raw.startswith("~"):
        if len(raw) == 1:
            raise BadRequest(f"invalid query string value: {raw}")
        return Fuzzy(raw[1:])
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1]
        if inner.count("~") != 1:
            raise BadRequest(f"invalid query string value: {raw}")
        low, high = inner.split("~")
        if not low.strip() and not high.strip():
            raise BadRequest(f"invalid query string value: {raw}")
        return Range(_typed(low) if low.strip() else None, _typed(high) if high.strip() else None)
    if raw.startswith("{") and raw.endswith("}"):
        return AnyOf(tuple(_typed(v) for v in raw[1:-1].split(" ") if v.strip()))
    if raw.startswith("(") and raw.endswith(")"):
        return AllOf(tuple(_typed(v) for v in raw[1:-1].split(" ") if v.strip()))
    return Exact(raw)


def snake(key: str) -> str:
    """Harbor accepts the Go field name too: `ProjectID` is `project_id`."""
    key = key.replace("ID", "Id")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def parse_q(q: str | None) -> list[tuple[str, object]]:
    if not q:
        return []
    q = unquote(q)
    clauses = []
    for clause in q.split(","):
        key, sep, value = clause.partition("=")
        key = key.strip()
        if not sep or not key or not value:
            raise BadRequest(MISSING_EQUALS)
        clauses.append((snake(key), parse_value(value)))
    if not re.fullmatch(Q_PATTERN, q):
        raise BadRequest(f"invalid query string: {q}")
    return clauses


@dataclass(frozen=True)
class Column:
    """A filterable column: its ORM path and the Python type of its values."""

    path: str
    kind: type = str


class NoMatch(Exception):
    """A value that no row of the column can hold (e.g. text for an id): nothing matches."""


def _convert(column: Column, value):
    if value is None:
        return None
    if column.kind is str:
        return _text(value)
    if column.kind is int:
        try:
            number = int(value)
        except (TypeError, ValueError) as exc:
            raise NoMatch from exc
        if not INT64_MIN <= number <= INT64_MAX:
            raise NoMatch
        return number
    if column.kind is datetime:
        if isinstance(value, datetime):
            return value
        raise NoMatch
    if column.kind is bool:
        return str(value).lower() in ("true", "1")
    return value


def _text(value) -> str:
    """No stored text holds a NUL (PostgreSQL's cannot; SQLite's LIKE would read it as the
    pattern's end): a value holding one matches nothing, on both databases."""
    text = str(value)
    if "\x00" in text:
        raise NoMatch
    return text


def column_q(column: Column, term) -> Q:
    try:
        return _column_q(column, term)
    except NoMatch:
        return Q(pk__in=[])


def _column_q(column: Column, term) -> Q:
    path = column.path
    if isinstance(term, Exact):
        return Q(**{path: _convert(column, term.value)})
    if isinstance(term, Fuzzy):
        return Q(**{f"{path}__icontains": _text(term.value)})
    if isinstance(term, Range):
        q = Q()
        if term.low is not None:
            q &= Q(**{f"{path}__gte": _convert(column, term.low)})
        if term.high is not None:
            q &= Q(**{f"{path}__lte": _convert(column, term.high)})
        return q
    if isinstance(term, AnyOf):
        return Q(**{f"{path}__in": [_convert(column, v) for v in term.values]})
    q = Q()
    for value in term.values:
        q &= Q(**{path: _convert(column, value)})
    return q


# A special key's handler: (queryset, term) -> queryset.
Special = Callable[[QuerySet, object], QuerySet]


@dataclass
class QuerySpec:
    """What one list endpoint lets `q` filter and `sort` order by."""

    columns: dict[str, Column]
    default_order: tuple[str, ...]
    special: dict[str, Special] | None = None
    sortable: dict[str, str] | None = None

    def filter(self, queryset: QuerySet, q: str | None) -> QuerySet:
        for key, term in parse_q(q):
            if self.special and key in self.special:
                queryset = self.special[key](queryset, term)
            elif key in self.columns:
                queryset = queryset.filter(column_q(self.columns[key], term))
        return queryset

    def order(self, queryset: QuerySet, sort: str | None) -> QuerySet:
        sortable = self.sortable or {key: column.path for key, column in self.columns.items()}
        fields = []
        for item in (sort or "").split(","):
            item = item.strip()
            descending = item.startswith("-")
            key = snake(item.lstrip("-"))
            if key in sortable:
                fields.append(("-" if descending else "") + sortable[key])
        if not fields:
            return queryset.order_by(*self.default_order)
        return queryset.order_by(*fields, *self.default_order)


def optional(name: str, raw: str) -> str | None:
    """A text parameter; go-swagger binds an empty optional value as no value."""
    return raw or None


# Read by the paginator; declared here for the schema.
PAGING = {
    "page": Param({"type": "integer", "format": "int64", "default": 1}),
    "page_size": Param({"type": "integer", "format": "int64", "default": 10, "maximum": 100}),
}


def listing(spec: QuerySpec, **own: Param) -> QueryFilters:
    """A list endpoint's query parameters: its own filters, then `q` and `sort` over
    `spec`, then paging."""
    return QueryFilters(
        {
            **own,
            "q": Param({"type": "string", "pattern": f"^{Q_PATTERN}$"}, apply=spec.filter),
            "sort": Param(str, default="", apply=spec.order),
            **PAGING,
        }
    )
