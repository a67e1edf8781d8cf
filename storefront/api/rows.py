"""Catalogue reads as plain rows: one `.values()` query per table, rendered straight into
Tiendanube's wire dicts.

A page of 200 products brings 600 variants with it; building model instances, prefetch
querysets and datetimes for them cost most of a listing's time. Here the database hands
back timestamps already formatted (`WireTime`), and each table is read once per page.
The serializers in `storefront.api.serializers` keep describing the shapes (OpenAPI) and
render single model instances through these same functions (`instance_row`).
"""

import datetime
import decimal
import json
from collections import defaultdict
from functools import cache

import orjson
from django.core.exceptions import EmptyResultSet
from django.db.models import CharField, F, Func, TextField, Value
from django.db.models.functions import Cast

from storefront.models import Category, Product, ProductImage, Variant, product_url

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


def timed(prefix: str = "") -> dict:
    """`.values()` keywords for a row's two timestamps, formatted (`created`, `updated`)."""
    return {"created": WireTime(f"{prefix}created_at"), "updated": WireTime(f"{prefix}updated_at")}


PRODUCT_COLUMNS = (
    "id",
    "store_id",
    "name",
    "description",
    "handle",
    "attributes",
    "published",
    "free_shipping",
    "requires_shipping",
    "video_url",
    "seo_title",
    "seo_description",
    "brand",
    "tags",
)
VARIANT_COLUMNS = (
    "id",
    "image_id",
    "product_id",
    "position",
    "price",
    "compare_at_price",
    "promotional_price",
    "stock",
    "weight",
    "width",
    "height",
    "depth",
    "sku",
    "values",
    "barcode",
    "mpn",
    "age_group",
    "gender",
    "cost",
)
IMAGE_COLUMNS = ("id", "product_id", "src", "position", "alt")
I18N_COLUMNS = ("name", "description", "handle")


def i18n(value, languages: list[str]) -> dict:
    value = value if isinstance(value, dict) else {}
    return {code: value.get(code) or "" for code in languages}


def money(value, places: int = 2) -> str | None:
    return None if value is None else f"{value:.{places}f}"


def timestamp(value: datetime.datetime) -> str:
    return value.astimezone(datetime.UTC).strftime(WIRE_TIME_STRFTIME)


def instance_row(instance) -> dict:
    """A model instance as the row `.values(*COLUMNS, **timed())` would have read."""
    row = dict(vars(instance))
    row["created"] = timestamp(instance.created_at)
    row["updated"] = timestamp(instance.updated_at)
    return row


# --- reading: one cursor per table, plain converters ------------------------------------


def read(queryset) -> list[dict]:
    """The rows of a `.values()` queryset, as Django would give them, read in one
    `fetchall()`. Django converts each value through a chain of converter calls; at 800
    rows of 20 columns that chain, and `json.loads` for every JSON cell, cost more than
    the query. Here JSON columns are decoded by orjson, and SQLite's decimals and
    booleans by plain functions; any other converted column keeps Django's chain."""
    query = queryset.query
    compiler = query.get_compiler(queryset.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return []
    names = [*query.extra_select, *query.values_select, *query.annotation_select]
    columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
    converting = [
        (position, _converter(chain, expression, compiler.connection))
        for position, (chain, expression) in compiler.get_converters(columns).items()
    ]
    with compiler.connection.cursor() as cursor:
        cursor.execute(sql, params)
        records = cursor.fetchall()
    if not converting:
        return [dict(zip(names, record, strict=True)) for record in records]
    rows = []
    for record in records:
        values = list(record)
        for position, convert in converting:
            values[position] = convert(values[position])
        rows.append(dict(zip(names, values, strict=True)))
    return rows


def _converter(chain, expression, connection):
    kind = expression.output_field.get_internal_type()
    if kind == "JSONField":
        return _json_converter(chain, expression, connection)
    if connection.vendor == "sqlite" and kind == "DecimalField" and len(chain) == 1:
        return _sqlite_decimal(expression.output_field)
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


def _sqlite_decimal(field):
    """Django's SQLite decimal converter (15 significant digits, quantized to the field's
    places), except that a whole number the float type holds exactly stays an int: it
    formats as the Decimal would (`money`)."""
    create = decimal.Context(prec=15).create_decimal_from_float
    quantum = decimal.Decimal(1).scaleb(-field.decimal_places)
    context = field.context

    def convert(value):
        if value is None or (type(value) is int and -(2**53) < value < 2**53):
            return value
        return create(value).quantize(quantum, context=context)

    return convert


# --- one resource each (key order as in Tiendanube's answers) -----------------------------


def variant_payload(row: dict, languages: list[str]) -> dict:
    return {
        "id": row["id"],
        "image_id": row["image_id"],
        "product_id": row["product_id"],
        "position": row["position"],
        "price": money(row["price"]),
        "compare_at_price": money(row["compare_at_price"]),
        "promotional_price": money(row["promotional_price"]),
        "stock_management": row["stock"] is not None,
        "stock": row["stock"],
        "weight": money(row["weight"], 3),
        "width": money(row["width"]),
        "height": money(row["height"]),
        "depth": money(row["depth"]),
        "sku": row["sku"],
        "values": [i18n(value, languages) for value in row["values"]],
        "barcode": row["barcode"],
        "mpn": row["mpn"],
        "age_group": row["age_group"],
        "gender": row["gender"],
        "cost": money(row["cost"]),
        "created_at": row["created"],
        "updated_at": row["updated"],
    }


def image_payload(row: dict) -> dict:
    return {
        "id": row["id"],
        "product_id": row["product_id"],
        "src": row["src"],
        "position": row["position"],
        "alt": row["alt"],
        "created_at": row["created"],
        "updated_at": row["updated"],
    }


def category_payload(row: dict, subcategories: list[int], languages: list[str]) -> dict:
    return {
        "id": row["id"],
        "name": i18n(row["name"], languages),
        "description": i18n(row["description"], languages),
        "handle": i18n(row["handle"], languages),
        "parent": row["parent_id"],
        "subcategories": subcategories,
        "google_shopping_category": row["google_shopping_category"],
        "created_at": row["created"],
        "updated_at": row["updated"],
    }


def product_payload(row: dict, languages: list[str], variants, images, categories) -> dict:
    return {
        "id": row["id"],
        "name": i18n(row["name"], languages),
        "description": i18n(row["description"], languages),
        "handle": i18n(row["handle"], languages),
        "attributes": [i18n(value, languages) for value in row["attributes"]],
        "published": row["published"],
        "free_shipping": row["free_shipping"],
        "requires_shipping": row["requires_shipping"],
        "canonical_url": product_url(row["store_id"], row["id"]),
        "video_url": row["video_url"],
        "seo_title": row["seo_title"],
        "seo_description": row["seo_description"],
        "brand": row["brand"],
        "created_at": row["created"],
        "updated_at": row["updated"],
        "variants": variants,
        "tags": row["tags"],
        "images": images,
        "categories": categories,
    }


# --- whole products: a page in a constant number of queries -------------------------------


def product_rows(queryset):
    """The products of `queryset` (filtered, ordered; sliced by the caller) as rows."""
    return queryset.values(*PRODUCT_COLUMNS, **timed())


class ProductPages:
    """Products as the paginator counts and slices them. A slice reads the page's ids in
    a subquery (off an index for the default order) and the full rows of those ids only:
    rows skipped by a deep OFFSET are never read or formatted."""

    def __init__(self, ordered, sort):
        self.ordered = ordered  # filtered and sorted
        self.sort = sort  # applies the same order to another product queryset

    def count(self) -> int:
        return self.ordered.count()

    def __getitem__(self, window: slice):
        ids = self.ordered.values("pk")[window]
        return read(product_rows(self.sort(Product.objects.filter(pk__in=ids))))


def subcategories_of(category_ids) -> dict[int, list[int]]:
    """Ids of the direct children of each category, ascending (one query)."""
    children = defaultdict(list)
    pairs = Category.objects.filter(parent_id__in=category_ids).order_by("id")
    for parent_id, child_id in pairs.values_list("parent_id", "id"):
        children[parent_id].append(child_id)
    return children


def render_products(store, rows: list[dict]) -> list[dict]:
    """Products with their variants, images and categories: four queries whatever the
    number of rows (none for no rows)."""
    if not rows:
        return []
    languages = store.languages
    ids = [row["id"] for row in rows]
    variants = defaultdict(list)
    for row in read(_variant_rows().filter(product_id__in=ids)):
        variants[row["product_id"]].append(variant_payload(row, languages))
    images = defaultdict(list)
    for row in read(_image_rows().filter(product_id__in=ids)):
        images[row["product_id"]].append(image_payload(row))
    categories = _categories_by_product(ids, languages)
    return [
        product_payload(
            row, languages, variants[row["id"]], images[row["id"]], categories[row["id"]]
        )
        for row in rows
    ]


# The page's variants, images and category links are read by querysets built once per
# process and only filtered per request: building a `.values()` of twenty columns and
# formatted timestamps cost as much as running it.


@cache
def _variant_rows():
    return Variant.objects.order_by("position", "id").values(*VARIANT_COLUMNS, **timed())


@cache
def _image_rows():
    return ProductImage.objects.order_by("position", "id").values(*IMAGE_COLUMNS, **timed())


@cache
def _category_link_rows():
    return Product.categories.through.objects.order_by("category_id").values(
        "product_id",
        "category_id",
        **{column: Cast(f"category__{column}", TextField()) for column in I18N_COLUMNS},
        parent_id=F("category__parent_id"),
        google_shopping_category=F("category__google_shopping_category"),
        **timed(prefix="category__"),
    )


def _categories_by_product(product_ids: list[int], languages: list[str]) -> dict[int, list]:
    """Full category objects of each product. The link rows repeat a category for every
    product in it: its i18n columns come as JSON text, decoded and rendered once."""
    links = read(_category_link_rows().filter(product_id__in=product_ids))
    children = subcategories_of({link["category_id"] for link in links}) if links else {}
    rendered: dict[int, dict] = {}
    by_product = defaultdict(list)
    for link in links:
        pk = link["category_id"]
        category = rendered.get(pk)
        if category is None:
            row = {
                **link,
                "id": pk,
                **{column: json.loads(link[column]) for column in I18N_COLUMNS},
            }
            category = rendered[pk] = category_payload(row, children.get(pk, []), languages)
        by_product[link["product_id"]].append(category)
    return by_product
