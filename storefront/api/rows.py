"""Store answers read as plain rows: one `.values()` query per table, rendered by the
records of `storefront.api.serializers.records`.

A page of 200 products brings 600 variants with it; building model instances, prefetch
querysets and datetimes for them cost most of a listing's time. Here the database hands
back timestamps already formatted (`WireTime`), and each table is read once per page.
Single objects that a write returns are rendered from their model instance
(`instance_row`), through the same records.
"""

import datetime
from collections import defaultdict
from collections.abc import Callable
from functools import cache

import orjson
from django.core.exceptions import EmptyResultSet
from django.db import connection, connections
from django.db.models import CharField, DecimalField, F, Func, TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast

from config.records import Record
from storefront.api.serializers.records import (
    CATEGORY,
    PRODUCT,
    PRODUCT_IMAGE,
    VARIANT,
    context_of,
)
from storefront.models import Category, Product, ProductImage, Variant

WIRE_TIME_POSTGRES = 'YYYY-MM-DD"T"HH24:MI:SS"+0000"'
WIRE_TIME_STRFTIME = "%Y-%m-%dT%H:%M:%S+0000"


class WireTime(Func):
    """A timestamp column as `2024-05-02T14:03:11+0000` (UTC, whole seconds), formatted
    by the database."""

    def __init__(self, column: str):
        super().__init__(F(column), output_field=CharField())

    def as_postgresql(self, compiler, connection, **extra):
        column, params = compiler.compile(self.source_expressions[0])
        return f"to_char({column} AT TIME ZONE 'UTC', %s)", (*params, WIRE_TIME_POSTGRES)

    def as_sqlite(self, compiler, connection, **extra):
        # Django keeps SQLite datetimes as UTC text, which strftime() reads.
        return Func(
            Value(WIRE_TIME_STRFTIME), self.source_expressions[0], function="strftime"
        ).as_sql(compiler, connection)


class WireDecimal(Func):
    """A decimal column as text with its field's places (`1500.00`, null stays null),
    formatted by the database: building and formatting a Decimal per value cost more
    than the rest of a variant's rendering."""

    def __init__(self, column: str, places: int):
        super().__init__(F(column), output_field=CharField())
        self.places = places

    def as_postgresql(self, compiler, connection, **extra):
        # numeric(p, s) as text keeps its s places.
        column, params = compiler.compile(self.source_expressions[0])
        return f"({column})::text", params

    def as_sqlite(self, compiler, connection, **extra):
        # Django keeps SQLite decimals as integers or reals rounded to the field's places.
        column, params = compiler.compile(self.source_expressions[0])
        sql = f"CASE WHEN {column} IS NULL THEN NULL ELSE printf('%%.{self.places}f', {column}) END"
        return sql, (*params, *params)


# Row keys of the values the database formats: timestamps, and decimals (`<column>_text`).
TIMED = ("created", "updated")
TEXT = "_text"


def timed(prefix: str = "") -> dict:
    """`.values()` keywords for a row's two timestamps, formatted (`created`, `updated`)."""
    return {"created": WireTime(f"{prefix}created_at"), "updated": WireTime(f"{prefix}updated_at")}


def timestamp(value: datetime.datetime) -> str:
    return value.astimezone(datetime.UTC).strftime(WIRE_TIME_STRFTIME)


def money(value, places: int) -> str | None:
    return None if value is None else f"{value:.{places}f}"


def instance_row(instance) -> dict:
    """A model instance as the row `values()` would have read."""
    row = dict(vars(instance))
    row["created"] = timestamp(instance.created_at)
    row["updated"] = timestamp(instance.updated_at)
    for field in instance._meta.concrete_fields:
        if isinstance(field, DecimalField):
            row[field.name + TEXT] = money(row[field.attname], field.decimal_places)
    return row


# --- reading: one cursor per table, plain converters ------------------------------------


def read(queryset) -> list[dict]:
    """The rows of a `.values()` queryset, as Django would give them (see `Statement`)."""
    try:
        statement = Statement(queryset)
    except EmptyResultSet:
        return []
    return statement.rows()


class Statement:
    """A `.values()` queryset compiled, read in one `fetchall()`. Django converts each
    value through a chain of converter calls; at 800 rows of 20 columns that chain, and
    `json.loads` for every JSON cell, cost more than the query. Here JSON columns are
    decoded by orjson, and SQLite's booleans by a plain function; any other converted
    column keeps Django's chain. Each fetched tuple becomes its row through one dict
    display written for the statement's columns (`_row_builder`). A statement kept
    (`rows(bound)` replacing the parameter `BOUND`) spares compiling the same query on
    every request."""

    def __init__(self, queryset):
        query = queryset.query
        compiler = query.get_compiler(queryset.db)
        self.sql, self.params = compiler.as_sql()
        self.alias = queryset.db
        self.names = [*query.extra_select, *query.values_select, *query.annotation_select]
        columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
        converters = {
            position: _converter(chain, expression, compiler.connection)
            for position, (chain, expression) in compiler.get_converters(columns).items()
        }
        self.build = _row_builder(self.names, converters)

    def rows(self, bound=None) -> list[dict]:
        params = tuple(bound if param is BOUND else param for param in self.params)
        with connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, params)
            records = cursor.fetchall()
        return list(map(self.build, records))


def _row_builder(names: list[str], converters: dict[int, Callable]) -> Callable:
    """`build(record) -> dict`: `{names[0]: record[0], ...}`, converters applied, as
    straight-line code: a loop copying, converting and zipping each record cost as much
    as fetching it."""
    scope: dict = {}
    items = []
    for position, name in enumerate(names):
        scope[f"name{position}"] = name
        value = f"record[{position}]"
        if position in converters:
            scope[f"convert{position}"] = converters[position]
            value = f"convert{position}({value})"
        items.append(f"name{position}: {value}")
    exec(f"def build(record):\n    return {{{', '.join(items)}}}\n", scope)
    return scope["build"]


BOUND = object()  # the parameter a kept statement takes per run


def any_id(vendor: str) -> RawSQL:
    """A subquery of the ids given as the one parameter `BOUND` (see `bound_ids`)."""
    if vendor == "postgresql":
        return RawSQL("SELECT unnest(%s::bigint[])", (BOUND,))
    return RawSQL("SELECT value FROM json_each(%s)", (BOUND,))


def bound_ids(vendor: str, ids: list[int]):
    return ids if vendor == "postgresql" else orjson.dumps(ids).decode()


def _converter(chain, expression, connection):
    kind = expression.output_field.get_internal_type()
    if kind == "JSONField":
        return _json_converter(chain, expression, connection)
    if connection.vendor == "sqlite" and kind == "BooleanField" and len(chain) == 1:
        return lambda value: bool(value) if value in (0, 1) else value

    def convert(value):
        for step in chain:
            value = step(value, expression, connection)
        return value

    return convert


def _json_converter(chain, expression, connection):
    def convert(value):
        if value is None:
            return None
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            for step in chain:  # what orjson refuses (NaN, huge integers): Django's way
                value = step(value, expression, connection)
            return value

    return convert


# --- rows of a record -------------------------------------------------------------------


def values(queryset, record: Record, prefix: str = ""):
    """`queryset.values()` of `record`'s columns, timestamps and decimals formatted."""
    plain, formatted = [], timed(prefix)
    for column in record.columns:
        if column.endswith(TEXT):
            name = column.removesuffix(TEXT)
            places = queryset.model._meta.get_field(name).decimal_places
            formatted[column] = WireDecimal(prefix + name, places)
        elif column not in TIMED:
            plain.append(column)
    return queryset.values(*plain, **formatted)


class Rows:
    """A `.values()` queryset as the paginator counts and slices it: each slice read by
    `read`."""

    def __init__(self, queryset):
        self.queryset = queryset

    def count(self) -> int:
        return self.queryset.count()

    def __getitem__(self, window: slice) -> list[dict]:
        return read(self.queryset[window])


class ProductPages(Rows):
    """Products as the paginator counts and slices them. A slice reads the page's ids in
    a subquery (off an index for the default order) and the full rows of those ids only:
    rows skipped by a deep OFFSET are never read or formatted."""

    def __init__(self, ordered, sort):
        super().__init__(ordered)  # filtered and sorted
        self.sort = sort  # applies the same order to another product queryset

    def __getitem__(self, window: slice) -> list[dict]:
        ids = self.queryset.values("pk")[window]
        return read(values(self.sort(Product.objects.filter(pk__in=ids)), PRODUCT))


# --- whole products and categories: a page in a constant number of queries ---------------


def subcategories_of(category_ids) -> dict[int, list[int]]:
    """Ids of the direct children of each category, ascending (one query)."""
    vendor = connection.vendor
    children = defaultdict(list)
    for row in _subcategories_statement(vendor).rows(bound_ids(vendor, [*category_ids])):
        children[row["parent_id"]].append(row["id"])
    return children


@cache
def _subcategories_statement(vendor: str) -> Statement:
    children = Category.objects.filter(parent_id__in=any_id(vendor)).order_by("id")
    return Statement(children.values("parent_id", "id"))


def render_categories(store, rows: list[dict]) -> list[dict]:
    """Categories with their subcategories: one query whatever the number of rows."""
    context = context_of(store)
    context["subcategories"] = subcategories_of([row["id"] for row in rows]) if rows else {}
    return [CATEGORY.render(row, context) for row in rows]


def render_products(store, rows: list[dict]) -> list[dict]:
    """Products with their variants, images and categories: four queries whatever the
    number of rows (none for no rows)."""
    if not rows:
        return []
    context = context_of(store)
    ids = [row["id"] for row in rows]
    context["variants"] = _by_product(VARIANT, _of_products("variants", ids), context)
    context["images"] = _by_product(PRODUCT_IMAGE, _of_products("images", ids), context)
    context["categories"] = _categories_by_product(ids, context)
    return [PRODUCT.render(row, context) for row in rows]


def _by_product(record: Record, rows: list[dict], context: dict) -> dict[int, list[dict]]:
    rendered = defaultdict(list)
    for row in rows:
        rendered[row["product_id"]].append(record.render(row, context))
    return rendered


def _of_products(table: str, ids: list[int]) -> list[dict]:
    vendor = connection.vendor
    return _children_statement(table, vendor).rows(bound_ids(vendor, ids))


# The page's variants, images and category links are read by statements compiled once per
# process, the page's ids their one parameter: compiling a `.values()` of twenty columns
# with formatted timestamps cost as much as running it.


@cache
def _children_statement(table: str, vendor: str) -> Statement:
    queryset = {
        "variants": lambda: values(Variant.objects.order_by("position", "id"), VARIANT),
        "images": lambda: values(ProductImage.objects.order_by("position", "id"), PRODUCT_IMAGE),
        "categories": _category_link_rows,
    }[table]()
    return Statement(queryset.filter(product_id__in=any_id(vendor)))


# A category's JSON columns, read through the link table as text (decoded once per page).
JSON_COLUMNS = ("name", "description", "handle")


def _category_link_rows():
    plain = (c for c in CATEGORY.columns if c not in (*TIMED, *JSON_COLUMNS, "id"))
    return Product.categories.through.objects.order_by("category_id").values(
        "product_id",
        "category_id",
        **{column: Cast(f"category__{column}", TextField()) for column in JSON_COLUMNS},
        **{column: F(f"category__{column}") for column in plain},
        **timed(prefix="category__"),
    )


def _categories_by_product(product_ids: list[int], context: dict) -> dict[int, list]:
    """Full category objects of each product. The link rows repeat a category for every
    product in it: its JSON columns come as text, decoded and rendered once."""
    links = _of_products("categories", product_ids)
    context = {
        **context,
        "subcategories": subcategories_of({link["category_id"] for link in links}) if links else {},
    }
    rendered: dict[int, dict] = {}
    by_product = defaultdict(list)
    for link in links:
        pk = link["category_id"]
        category = rendered.get(pk)
        if category is None:
            row = {
                **link,
                "id": pk,
                **{column: orjson.loads(link[column]) for column in JSON_COLUMNS},
            }
            category = rendered[pk] = CATEGORY.render(row, context)
        by_product[link["product_id"]].append(category)
    return by_product
