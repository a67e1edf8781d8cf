"""A page of products written as JSON text by the database.

Rendering 200 products in Python (1,200 rows read, converted, localized, then encoded)
cost about two thirds of a page's CPU. Here each row of the four tables comes back as
its object's JSON text, written in SQL with the very bytes `PRODUCT.render` and orjson
give: the same key order, strings escaped as orjson escapes them (SQLite's json_quote,
PostgreSQL's to_json), decimals with their places, timestamps as `WireTime`. Python
only joins a product's text with its children's.

Values the SQL does not write as Python would (an internationalized value that is
neither a string nor null, a list column that is not a list, on SQLite a JSON column
holding a NUL character) come out as the byte MARK, which valid JSON text never holds
unescaped: a page holding one is rendered in Python instead
(`storefront.api.rows.render_products`).
"""

import hashlib
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db import connection

from config import prepared
from config.kept import id_list, id_match
from storefront.api import product_texts
from storefront.api.rows import WIRE_TIME_POSTGRES, WIRE_TIME_STRFTIME
from storefront.models import Category, Product, ProductImage, Variant

MARK = b"\x01"
# A lone surrogate (SQLite keeps `\ud800` in its JSON text): its bytes are not UTF-8, and
# Python's rendering refuses it as it always has.
SURROGATE = re.compile(b"\xed[\xa0-\xbf]")
# Language codes written into the SQL as object keys and JSON paths: letters only.
CODE = re.compile(r"[A-Za-z]{1,8}")
# Lists written item by item up to this length (see `_Sql.each`).
SHORT_LIST = 3


class Encoded:
    """A response body already encoded as JSON (see `storefront.api.base.StoreRenderer`)."""

    __slots__ = ("body",)

    def __init__(self, body: bytes):
        self.body = body


def page_body(store, ids: list[int]) -> Encoded | None:
    """The JSON array of the products `ids` (in that order; one deleted meanwhile is left
    out): their kept texts, the others written in four queries and kept
    (`product_texts`); None when the page must be rendered in Python."""
    if not ids:
        return Encoded(b"[]")
    languages = tuple(store.languages)
    # None (an empty object in SQL) or a code twice (a key twice) is Python's to write.
    if not languages or len(set(languages)) < len(languages):
        return None
    if not all(CODE.fullmatch(code) for code in languages):
        return None
    sql = _statements(connection.vendor, languages, settings.EXTERNAL_URL)
    texts = product_texts.read(ids, sql.form)
    missing = [pk for pk in ids if pk not in texts]
    if missing:
        written = _written(sql, missing)
        product_texts.keep(sql.form, written)
        texts.update((pk, text) for pk, (_, text) in written.items())
    # One deleted since its id was read is left out.
    parts = [texts[pk] for pk in ids if pk in texts]
    body = b"[" + b",".join(parts) + b"]"
    if MARK in body or (b"\xed" in body and SURROGATE.search(body)):
        return None
    return Encoded(body)


def _written(sql, ids: list[int]) -> dict[int, tuple[int, bytes]]:
    """The JSON text of the products `ids`, with the revision it was read at (read first:
    a write committed between the four queries raises it past the text's)."""
    bound = id_list(ids, connection.vendor)
    children = []
    with prepared.cursor(binary=True) as cursor:
        cursor.execute(sql.products, [sql.url, bound])
        heads = {pk: (revision, head, tail) for pk, revision, head, tail in cursor.fetchall()}
        for statement in (sql.variants, sql.images):
            cursor.execute(statement, [bound])
            texts = defaultdict(list)
            for pk, text in cursor.fetchall():
                texts[pk].append(text)
            children.append(texts)
        cursor.execute(sql.categories, [bound])
        links = cursor.fetchall()
    variants, images = children
    written = {category: text for _, category, text in links if text is not None}
    categories = defaultdict(list)
    for pk, category, _ in links:
        categories[pk].append(written[category])
    return {
        pk: (
            revision,
            b"".join(
                (
                    head,
                    b"[",
                    b",".join(variants.get(pk, ())),
                    b"]",
                    tail,
                    b"[",
                    b",".join(images.get(pk, ())),
                    b'],"categories":[',
                    b",".join(categories.get(pk, ())),
                    b"]}",
                )
            ),
        )
        for pk, (revision, head, tail) in heads.items()
    }


class _Sql:
    """A vendor's SQL pieces: each makes the JSON text of a column."""

    def __init__(self, vendor: str, languages: tuple[str, ...]):
        self.vendor = vendor
        self.postgres = vendor == "postgresql"
        self.languages = languages

    def quote(self, text: str) -> str:
        """A JSON string, or null."""
        if self.postgres:
            return f"coalesce(to_json(CAST({text} AS text))::text, 'null')"
        return f"json_quote({text})"  # json_quote(NULL) is null

    def number(self, column: str) -> str:
        return f"coalesce(CAST({column} AS text), 'null')"

    def flag(self, column: str) -> str:
        return f"CASE WHEN {column} IS NULL THEN 'null' WHEN {column} THEN 'true' ELSE 'false' END"

    def time(self, column: str) -> str:
        if self.postgres:
            text = f"to_char({column} AT TIME ZONE 'UTC', '{WIRE_TIME_POSTGRES}')"
        else:
            text = f"strftime('{WIRE_TIME_STRFTIME.replace('%', '%%')}', {column})"
        # null for what the database cannot read as a time, as `WireTime` gives it
        return f"""coalesce('"' || {text} || '"', 'null')"""

    def money(self, column: str, places: int) -> str:
        if self.postgres:  # numeric(p, s) as text keeps its s places
            return f"""coalesce('"' || CAST({column} AS text) || '"', 'null')"""
        text = f"printf('%%.{places}f', {column})"
        return f"""CASE WHEN {column} IS NULL THEN 'null' ELSE '"' || {text} || '"' END"""

    def localized(self, document: str, path: str = "") -> str:
        """`localizer`'s object of the JSON value at `path` of `document` (SQLite) or of
        the jsonb `document` (PostgreSQL): a string, '' for null or missing, MARK else."""
        entries = []
        for code in self.languages:
            if self.postgres:
                value = f"""CASE jsonb_typeof({document} -> '{code}')
                    WHEN 'string' THEN to_json({document} ->> '{code}')::text
                    WHEN 'null' THEN '""' ELSE CASE WHEN {document} -> '{code}' IS NULL
                    THEN '""' ELSE chr(1) END END"""
            else:
                key = f"{path} || '.{code}'" if path else f"'$.{code}'"
                value = f"""CASE coalesce(json_type({document}, {key}), 'null')
                    WHEN 'text' THEN json_quote(json_extract({document}, {key}))
                    WHEN 'null' THEN '""' ELSE char(1) END"""
            entries.append(f"""'"{code}":' || {value}""")
        written = "'{' || " + " || ',' || ".join(entries) + " || '}'"
        if self.postgres or path:
            return written
        return f"CASE WHEN {self.nul(document)} THEN char(1) ELSE {written} END"

    def nul(self, document: str) -> str:
        """SQLite: the JSON text holds a NUL character, which its string functions would
        cut the string at (jsonb refuses it)."""
        return f"instr({document}, '\\u0000')"

    def each(self, column: str, element, nth=None) -> str:
        """The JSON array of `element(...)` over the JSON list `column`, MARK if it is
        not a list. `nth(n)` writes the item at position n: a short list (variant values
        and product attributes hold one item per attribute, rarely more than three) is
        written item by item, as running the subquery for every row cost more than the
        rest of a variant."""
        if self.postgres:
            every = f"""(SELECT string_agg({element("item")}, ',' ORDER BY n)
                FROM jsonb_array_elements({column}) WITH ORDINALITY AS listed(item, n))"""
            kind, array, length = f"jsonb_typeof({column})", "'array'", "jsonb_array_length"
        else:
            every = (
                f"(SELECT group_concat({element('listed')}, ',') FROM json_each({column}) listed)"
            )
            kind, array, length = f"json_type({column})", "'array'", "json_array_length"
        items = every
        if nth is not None:
            short = " ".join(
                f"WHEN {count} THEN " + " || ',' || ".join(nth(n) for n in range(count))
                for count in range(1, SHORT_LIST + 1)
            )
            items = f"CASE {length}({column}) WHEN 0 THEN '' {short} ELSE {every} END"
        listed = f"'[' || coalesce({items}, '') || ']'"
        if self.postgres:
            return f"CASE {kind} WHEN {array} THEN {listed} ELSE chr(1) END"
        return f"""CASE WHEN {self.nul(column)} THEN char(1)
            WHEN {kind} = {array} THEN {listed} ELSE char(1) END"""

    def localized_list(self, column: str) -> str:
        if self.postgres:
            return self.each(column, self.localized, lambda n: self.localized(f"({column} -> {n})"))
        return self.each(
            column,
            lambda item: self.localized(column, f"{item}.fullkey"),
            lambda n: self.localized(column, f"'$[{n}]'"),
        )

    def text_list(self, column: str) -> str:
        if self.postgres:

            def text(item: str) -> str:
                return (
                    f"CASE jsonb_typeof({item}) WHEN 'string' "
                    f"THEN to_json({item} #>> '{{}}')::text ELSE chr(1) END"
                )

            return self.each(column, text, lambda n: text(f"({column} -> {n})"))

        def nth(n: int) -> str:
            path = f"'$[{n}]'"
            return f"""CASE json_type({column}, {path}) WHEN 'text'
                THEN json_quote(json_extract({column}, {path})) ELSE char(1) END"""

        return self.each(
            column,
            lambda item: (
                f"CASE {item}.type WHEN 'text' THEN json_quote({item}.value) ELSE char(1) END"
            ),
            nth,
        )

    def utf8(self, text: str) -> str:
        """`text` as UTF-8 bytes: a page is joined and sent without decoding 400 kB of
        text into Python strings and encoding it again."""
        if self.postgres:
            return f"convert_to({text}, 'UTF8')"
        return f"CAST({text} AS BLOB)"

    def ids(self, column: str) -> str:
        return id_match(column, self.vendor)

    def child_ids(self, category: str) -> str:
        """The JSON array of the category's children's ids, ascending."""
        table = Category._meta.db_table
        if self.postgres:
            return f"""(SELECT '[' || coalesce(string_agg(CAST(child.id AS text), ','
                ORDER BY child.id), '') || ']' FROM "{table}" child
                WHERE child.parent_id = {category})"""
        return f"""(SELECT '[' || coalesce(group_concat(child.id, ','), '') || ']'
            FROM (SELECT id FROM "{table}" WHERE parent_id = {category} ORDER BY id) child)"""


def _object(pairs: list[tuple[str, str]]) -> str:
    """SQL concatenating `"key":<value>` for each pair (keys are plain ASCII words)."""
    return " || ".join(
        f"""'{"{" if n == 0 else ","}"{key}":' || {value}""" for n, (key, value) in enumerate(pairs)
    )


def _places(model, column: str) -> int:
    return model._meta.get_field(column).decimal_places


class _Statements:
    def __init__(self, vendor: str, languages: tuple[str, ...], url: str):
        sql = _Sql(vendor, languages)
        self.url = url

        def stamps(alias: str) -> list[tuple[str, str]]:
            return [
                ("created_at", sql.time(f"{alias}.created_at")),
                ("updated_at", sql.time(f"{alias}.updated_at")),
            ]

        head = _object(
            [
                ("id", "CAST(p.id AS text)"),
                ("name", sql.localized("p.name")),
                ("description", sql.localized("p.description")),
                ("handle", sql.localized("p.handle")),
                ("attributes", sql.localized_list("p.attributes")),
                ("published", sql.flag("p.published")),
                ("free_shipping", sql.flag("p.free_shipping")),
                ("requires_shipping", sql.flag("p.requires_shipping")),
                (
                    "canonical_url",  # `product_url`
                    sql.quote(
                        "CAST(%s AS text) || '/stores/' || CAST(p.store_id AS text) "
                        "|| '/products/' || CAST(p.id AS text) || '/'"
                    ),
                ),
                ("video_url", sql.quote("p.video_url")),
                ("seo_title", sql.quote("p.seo_title")),
                ("seo_description", sql.quote("p.seo_description")),
                ("brand", sql.quote("p.brand")),
                *stamps("p"),
            ]
        )
        tail = f"""',"tags":' || {sql.quote("p.tags")} || ',"images":'"""
        head = sql.utf8(head + """ || ',"variants":'""")
        self.products = f"""SELECT p.id, p.revision, {head}, {sql.utf8(tail)}
            FROM "{Product._meta.db_table}" p WHERE {sql.ids("p.id")}"""

        money = [
            (column, sql.money(f"v.{column}", _places(Variant, column)))
            for column in ("price", "compare_at_price", "promotional_price")
        ]
        size = [
            (column, sql.money(f"v.{column}", _places(Variant, column)))
            for column in ("weight", "width", "height", "depth")
        ]
        variant = _object(
            [
                ("id", "CAST(v.id AS text)"),
                ("image_id", sql.number("v.image_id")),
                ("product_id", "CAST(v.product_id AS text)"),
                ("position", sql.number("v.position")),
                *money,
                ("stock_management", "CASE WHEN v.stock IS NULL THEN 'false' ELSE 'true' END"),
                ("stock", sql.number("v.stock")),
                *size,
                ("sku", sql.quote("v.sku")),
                ("values", sql.localized_list('v."values"')),
                ("barcode", sql.quote("v.barcode")),
                ("mpn", sql.quote("v.mpn")),
                ("age_group", sql.quote("v.age_group")),
                ("gender", sql.quote("v.gender")),
                ("cost", sql.money("v.cost", _places(Variant, "cost"))),
                *stamps("v"),
            ]
        )
        self.variants = f"""SELECT v.product_id, {sql.utf8(variant + " || '}'")}
            FROM "{Variant._meta.db_table}" v WHERE {sql.ids("v.product_id")}
            ORDER BY v.position, v.id"""

        image = _object(
            [
                ("id", "CAST(i.id AS text)"),
                ("product_id", "CAST(i.product_id AS text)"),
                ("src", sql.quote("i.src")),
                ("position", sql.number("i.position")),
                ("alt", sql.text_list("i.alt")),
                *stamps("i"),
            ]
        )
        self.images = f"""SELECT i.product_id, {sql.utf8(image + " || '}'")}
            FROM "{ProductImage._meta.db_table}" i WHERE {sql.ids("i.product_id")}
            ORDER BY i.position, i.id"""

        category = _object(
            [
                ("id", "CAST(c.id AS text)"),
                ("name", sql.localized("c.name")),
                ("description", sql.localized("c.description")),
                ("handle", sql.localized("c.handle")),
                ("parent", sql.number("c.parent_id")),
                ("subcategories", sql.child_ids("c.id")),
                ("google_shopping_category", sql.quote("c.google_shopping_category")),
                *stamps("c"),
            ]
        )
        # A category shared by many products of the page is written once, on its first
        # link (CASE evaluates its branch only when taken); the others carry null.
        link = Product.categories.through._meta.db_table
        first = "row_number() OVER (PARTITION BY link.category_id ORDER BY link.product_id) = 1"
        self.categories = f"""SELECT link.product_id, link.category_id,
            CASE WHEN {first} THEN {sql.utf8(category + " || '}'")} END
            FROM "{link}" link JOIN "{Category._meta.db_table}" c ON c.id = link.category_id
            WHERE {sql.ids("link.product_id")} ORDER BY link.category_id"""

        # What a kept text depends on besides its product (`product_texts`): the SQL
        # (the vendor, the languages), the external URL, and this module's code.
        form = [self.products, self.variants, self.images, self.categories, url, _SOURCE]
        self.form = hashlib.sha256("\0".join(form).encode()).hexdigest()


_SOURCE = Path(__file__).read_text()


@cache
def _statements(vendor: str, languages: tuple[str, ...], url: str) -> _Statements:
    return _Statements(vendor, languages, url)
