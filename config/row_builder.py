"""Rows built from fetched records by code written once per statement.

A loop copying, converting and zipping each fetched record cost as much as fetching it;
a statement kept per process (config.kept) writes instead one function whose body is the
row's display, converters applied inline.
"""

from collections.abc import Callable

import orjson


def row_builder(names: list[str], converters: dict[int, Callable], as_dict: bool = True):
    """`build(record)`: the row as `.values()` (a dict of `names`) or `.values_list()` (a
    tuple) gives it, each `converters[position]` applied to its column."""
    scope: dict = {}
    items = []
    for position, name in enumerate(names):
        scope[f"name{position}"] = name
        value = f"record[{position}]"
        if position in converters:
            scope[f"convert{position}"] = converters[position]
            value = f"convert{position}({value})"
        items.append(f"name{position}: {value}" if as_dict else value)
    display = f"{{{', '.join(items)}}}" if as_dict else f"({', '.join(items)},)"
    exec(f"def build(record):\n    return {display}\n", scope)
    return scope["build"]


def converter(chain, expression, connection) -> Callable:
    """Django's chain of converters for a column as one call. JSON is decoded by orjson
    (Django's `json.loads` per cell cost more than the query at 800 rows), SQLite's
    booleans by a plain function; either gives what the chain would."""
    field = expression.output_field
    kind = field.get_internal_type()
    if kind == "JSONField" and getattr(field, "decoder", None) is None:
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
        except (orjson.JSONDecodeError, TypeError):
            # What orjson refuses (NaN, huge integers, a value already decoded): Django's way.
            for step in chain:
                value = step(value, expression, connection)
            return value

    return convert
