"""Rows built from fetched records by code written once per statement.

A loop copying, converting and zipping each fetched record cost as much as fetching it;
a statement kept per process (the registry's, the store's) writes instead one function
whose body is the row's display, converters applied inline.
"""

from collections.abc import Callable


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
