"""Tiendanube's answers, each key declared once (`config.records`): the `.values()`
columns read, the row renderer and the OpenAPI schema. Key order is Tiendanube's.

Rows are plain dicts whose timestamps the database already formatted (`created`,
`updated`: see `storefront.api.rows`). The rendering context carries `i18n` (the store's
languages, see `localizer`) and, for products and categories, the children read for the
whole page (`variants`, `images`, `categories` by product id; `subcategories` by
category id).
"""

from functools import cache

from rest_framework import serializers

from config.records import Field, Record
from storefront.api.serializers.fields import I18nField, TimestampField, _decimal
from storefront.models import product_url


@cache
def localizer(languages: tuple[str, ...]):
    """An internationalized value as its object keyed by `languages` ('' for a language
    it lacks or leaves null; every language for a value that is not an object). Written
    out for the languages (a page of products localizes some 1,500 values)."""
    names = {f"code{n}": code for n, code in enumerate(languages)}
    blank = ", ".join(f"code{n}: ''" for n in range(len(languages)))
    found = ", ".join(f"code{n}: get(code{n}) or ''" for n in range(len(languages)))
    exec(
        "def localize(value):\n"
        "    if not isinstance(value, dict):\n"
        f"        return {{{blank}}}\n"
        "    get = value.get\n"
        f"    return {{{found}}}\n",
        names,
    )
    return names["localize"]


def context_of(store) -> dict:
    return {"i18n": localizer(tuple(store.languages))}


def _localized(value, context) -> dict:
    return context["i18n"](value)


def _localized_list(values, context) -> list[dict]:
    localize = context["i18n"]
    return [localize(value) for value in values]


def _children(kind: str):
    """The row's children of `kind` from the context (read for the whole page)."""
    return lambda row, context: context[kind].get(row["id"], [])


def _i18n() -> Field:
    return Field(I18nField(read_only=True), adapt=_localized)


def _i18n_list(column: str | None = None) -> Field:
    return Field(
        serializers.ListField(child=I18nField(), read_only=True), column, adapt=_localized_list
    )


def _id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(read_only=True, **kwargs)


def _text(**kwargs) -> serializers.CharField:
    return serializers.CharField(read_only=True, **kwargs)


def _flag() -> serializers.BooleanField:
    return serializers.BooleanField(read_only=True)


def _money(column: str, digits: int = 14, places: int = 2, **kwargs) -> Field:
    """A decimal as text with its places, which the database writes (see
    `storefront.api.rows.WireDecimal`) into the row's `<column>_text`."""
    return Field(_decimal(digits, places, read_only=True, **kwargs), f"{column}_text")


def _timestamps() -> dict[str, Field]:
    return {
        "created_at": Field(TimestampField(), "created"),
        "updated_at": Field(TimestampField(), "updated"),
    }


CATEGORY = Record(
    "Category",
    {
        "id": Field(_id()),
        "name": _i18n(),
        "description": _i18n(),
        "handle": _i18n(),
        "parent": Field(_id(allow_null=True), "parent_id"),
        "subcategories": Field(
            serializers.ListField(child=serializers.IntegerField(), read_only=True),
            get=_children("subcategories"),
        ),
        "google_shopping_category": Field(_text(allow_null=True)),
        **_timestamps(),
    },
    doc="A category of the store's tree: `parent` (null at the top) and the ids of its "
    "direct `subcategories`, ascending.",
)

PRODUCT_IMAGE = Record(
    "ProductImage",
    {
        "id": Field(_id()),
        "product_id": Field(_id()),
        "src": Field(serializers.URLField(read_only=True)),
        "position": Field(_id()),
        "alt": Field(serializers.ListField(child=serializers.CharField(), read_only=True)),
        **_timestamps(),
    },
)

VARIANT = Record(
    "Variant",
    {
        "id": Field(_id()),
        "image_id": Field(_id(allow_null=True)),
        "product_id": Field(_id()),
        "position": Field(_id()),
        "price": _money("price", allow_null=True),
        "compare_at_price": _money("compare_at_price", allow_null=True),
        "promotional_price": _money("promotional_price", allow_null=True),
        "stock_management": Field(_flag(), "stock", convert=lambda stock: stock is not None),
        "stock": Field(_id(allow_null=True)),
        "weight": _money("weight", 12, 3),
        "width": _money("width", 12),
        "height": _money("height", 12),
        "depth": _money("depth", 12),
        "sku": Field(_text(allow_null=True)),
        "values": _i18n_list(),
        "barcode": Field(_text(allow_null=True)),
        "mpn": Field(_text(allow_null=True)),
        "age_group": Field(_text(allow_null=True)),
        "gender": Field(_text(allow_null=True)),
        "cost": _money("cost", allow_null=True),
        **_timestamps(),
    },
    doc="A variant: its price, stock (null: not managed, infinite) and the values of the "
    "product's attributes.",
)

PRODUCT = Record(
    "Product",
    {
        "id": Field(_id()),
        "name": _i18n(),
        "description": _i18n(),
        "handle": _i18n(),
        "attributes": _i18n_list(),
        "published": Field(_flag()),
        "free_shipping": Field(_flag()),
        "requires_shipping": Field(_flag()),
        "canonical_url": Field(
            serializers.URLField(read_only=True),
            get=lambda row, context: product_url(row["store_id"], row["id"]),
        ),
        "video_url": Field(serializers.URLField(read_only=True, allow_null=True)),
        "seo_title": Field(_text()),
        "seo_description": Field(_text()),
        "brand": Field(_text(allow_null=True)),
        **_timestamps(),
        "variants": Field(VARIANT.serializer(many=True, read_only=True), get=_children("variants")),
        "tags": Field(_text()),
        "images": Field(
            PRODUCT_IMAGE.serializer(many=True, read_only=True), get=_children("images")
        ),
        "categories": Field(
            CATEGORY.serializer(many=True, read_only=True), get=_children("categories")
        ),
    },
    extra_columns=("store_id",),
    doc="A product with its variants, images and categories.",
)

SCRIPT = Record(
    "Script",
    {
        "id": Field(_id()),
        "src": Field(serializers.URLField(read_only=True)),
        "event": Field(_text()),
        "where": Field(_text()),
        **_timestamps(),
    },
)

WEBHOOK = Record(
    "Webhook",
    {
        "id": Field(_id()),
        "url": Field(serializers.URLField(read_only=True)),
        "event": Field(_text()),
        **_timestamps(),
    },
)
