"""Store answers read as plain rows: one `.values()` query per table, rendered by the
records of `storefront.api.serializers.records`.

A page of 200 products brings 600 variants with it; building model instances, prefetch
querysets, datetimes and Decimals for them cost most of a listing's time. Here the
database hands back timestamps and decimals already formatted (`WireTime`,
`WireDecimal`), and each table is read once per page, by id, through a statement kept
for the process (`_statement`, see config.kept).
Single objects that a write returns are rendered from their model instance
(`instance_row`), through the same records.
"""

import datetime
from collections import defaultdict
from functools import cache

import orjson
from django.db.models import CharField, DecimalField, F, Func, TextField, Value
from django.db.models.functions import Cast

from config.kept import Kept, any_id, read
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
    """Products as the paginator counts and slices them. A slice is the page's ids (read
    off an index for the default order): rows skipped by a deep OFFSET are never read or
    formatted, and the page is read by id (`product_rows`, `product_json`)."""

    def __getitem__(self, window: slice) -> list[int]:
        return list(self.queryset.values_list("pk", flat=True)[window])


def product_rows(ids: list[int]) -> list[dict]:
    """The rows of the products `ids`, in that order, by a kept statement."""
    found = {row["id"]: row for row in _rows_of("products", ids)} if ids else {}
    # A product deleted since its id was read is left out.
    return [found[pk] for pk in ids if pk in found]


# --- whole products and categories: a page in a constant number of queries ---------------


def subcategories_of(category_ids) -> dict[int, list[int]]:
    """Ids of the direct children of each category, ascending (one query)."""
    children = defaultdict(list)
    for row in _rows_of("subcategories", [*category_ids]):
        children[row["parent_id"]].append(row["id"])
    return children


def render_categories(store, rows: list[dict]) -> list[dict]:
    """Categories with their subcategories: one query whatever the number of rows."""
    context = context_of(store)
    context["subcategories"] = subcategories_of([row["id"] for row in rows]) if rows else {}
    return [CATEGORY.render(row, context) for row in rows]


def render_products(store, rows: list[dict]) -> list[dict]:
    """Products with their variants, images and categories: three queries whatever the
    number of rows (none for no rows)."""
    if not rows:
        return []
    context = context_of(store)
    ids = [row["id"] for row in rows]
    context["variants"] = _by_product(VARIANT, _rows_of("variants", ids), context)
    context["images"] = _by_product(PRODUCT_IMAGE, _rows_of("images", ids), context)
    context["categories"] = _categories_by_product(ids, context)
    return [PRODUCT.render(row, context) for row in rows]


def _by_product(record: Record, rows: list[dict], context: dict) -> dict[int, list[dict]]:
    rendered = defaultdict(list)
    for row in rows:
        rendered[row["product_id"]].append(record.render(row, context))
    return rendered


def _rows_of(table: str, ids: list[int]) -> list[dict]:
    """The rows of `table` (see `_statement`) for these ids."""
    return _statement(table).rows(ids=ids)


# Rows by id are read by statements compiled once per process, the ids their one
# parameter: compiling a `.values()` of twenty columns with formatted timestamps cost as
# much as running it, and a 200-item IN list as much again.


@cache
def _statement(table: str) -> Kept:
    queryset, key = {
        "products": (lambda: values(Product.objects.all(), PRODUCT), "pk"),
        "variants": (
            lambda: values(Variant.objects.order_by("position", "id"), VARIANT),
            "product_id",
        ),
        "images": (
            lambda: values(ProductImage.objects.order_by("position", "id"), PRODUCT_IMAGE),
            "product_id",
        ),
        "categories": (_category_link_rows, "product_id"),
        "subcategories": (
            lambda: Category.objects.order_by("id").values("parent_id", "id"),
            "parent_id",
        ),
    }[table]
    return Kept(lambda: queryset().filter(**{f"{key}__in": any_id("ids")}))


class ChildIds(Func):
    """The ids of the categories whose parent is `column`, as JSON text, in no order."""

    def __init__(self, column: str):
        super().__init__(F(column), output_field=TextField())

    def _subquery(self, compiler, connection, aggregate: str):
        column, params = compiler.compile(self.source_expressions[0])
        table = connection.ops.quote_name(Category._meta.db_table)
        return f"(SELECT {aggregate} FROM {table} child WHERE child.parent_id = {column})", params

    def as_postgresql(self, compiler, connection, **extra):
        return self._subquery(compiler, connection, "coalesce(json_agg(child.id), '[]')::text")

    def as_sqlite(self, compiler, connection, **extra):
        return self._subquery(compiler, connection, "json_group_array(child.id)")


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
        children=ChildIds("category_id"),
    )


def _categories_by_product(product_ids: list[int], context: dict) -> dict[int, list]:
    """Full category objects of each product, subcategories included (one query). The
    link rows repeat a category for every product in it: its JSON columns come as text,
    decoded and rendered once."""
    subcategories: dict[int, list[int]] = {}
    context = {**context, "subcategories": subcategories}
    rendered: dict[int, dict] = {}
    by_product = defaultdict(list)
    for link in _rows_of("categories", product_ids):
        pk = link["category_id"]
        category = rendered.get(pk)
        if category is None:
            subcategories[pk] = sorted(orjson.loads(link["children"]))
            row = {
                **link,
                "id": pk,
                **{column: orjson.loads(link[column]) for column in JSON_COLUMNS},
            }
            category = rendered[pk] = CATEGORY.render(row, context)
        by_product[link["product_id"]].append(category)
    return by_product
