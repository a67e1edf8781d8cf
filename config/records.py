"""Wire records declared once: each key with its source and its schema field.

A `Record` lists a resource's wire keys in one place. From that list come
- `columns`: what `.values()` must read for it;
- `render(row, context)`: the wire dict, built from a plain row (a `.values()` dict, or a
  model instance for records that read attributes) without DRF's per-field machinery,
  which cost most of a listing's time at 100 rows a page;
- `serializer`: a DRF serializer class whose fields describe the same keys in the OpenAPI
  schema, and which renders a model instance through `render`.

Omission follows the modelled system: go-swagger drops zero values (`omit=ZERO`), Gitea
drops nil pointers (`omit=NIL`), Tiendanube drops nothing (the default).
"""

from collections.abc import Callable
from operator import attrgetter, itemgetter

from rest_framework import serializers

ZERO = (None, "", 0, False)  # Go's omitempty on scalars and nil maps
NIL = (None,)
_DEFAULT = object()


class Field:
    """One wire key: its schema field and where its value comes from.

    `column`: the row key (or attribute) read, defaulting to the wire name; `get(row,
    context)`: a computed value instead (it reads no column of its own); `fixed`: the same
    value for every row instead (what is not modelled); `convert`: applied to the value;
    `adapt(value, context)`: applied after it, for a conversion that needs the rendering
    context (a store's languages); `omit`: values for which the key is left out (default:
    the record's).
    """

    def __init__(
        self,
        schema: serializers.Field,
        column: str | None = None,
        *,
        get: Callable | None = None,
        fixed=_DEFAULT,
        convert: Callable | None = None,
        omit: tuple = _DEFAULT,
        adapt: Callable | None = None,
    ):
        self.schema = schema
        self.column = column
        self.get = get
        self.fixed = fixed
        self.reads = get is None and fixed is _DEFAULT
        self.convert = convert
        self.adapt = adapt
        self.omit = omit


class Record:
    """A resource's wire keys, in schema order. `sort_keys`: written in alphabetical order
    (go-swagger's); `attributes`: rows are objects whose attributes are the columns;
    `extra_columns`: read for computed keys; `doc`: the schema component's description."""

    def __init__(
        self,
        name: str,
        fields: dict[str, Field],
        *,
        omit: tuple = (),
        sort_keys: bool = False,
        attributes: bool = False,
        extra_columns: tuple[str, ...] = (),
        doc: str | None = None,
    ):
        self.name = name
        self.doc = doc
        self.fields = fields
        self.columns = tuple(
            dict.fromkeys(
                (*(f.column or key for key, f in fields.items() if f.reads), *extra_columns)
            )
        )
        order = sorted(fields) if sort_keys else list(fields)
        self.attributes = attributes
        self.render = self._compile([(key, fields[key]) for key in order], omit)
        self._serializer = None

    def _compile(self, fields: list[tuple[str, Field]], omit: tuple) -> Callable:
        """`render(row, context=None)`: the wire dict of a row, as straight-line code with
        one line per key, written once per record. A loop over the keys with its branches
        cost as much per row as reading it (600 variants a page of products)."""
        names: dict = {}
        lines = []
        for n, (key, field) in enumerate(fields):
            names[f"key{n}"] = key
            if field.reads:
                column = field.column or key
                reader = attrgetter(column) if self.attributes else itemgetter(column)
                names[f"read{n}"] = reader
                value = f"read{n}(row)"
            elif field.get is not None:
                names[f"get{n}"] = field.get
                value = f"get{n}(row, context)"
            else:
                names[f"fixed{n}"] = field.fixed
                value = f"fixed{n}"
            if field.convert is not None:
                names[f"convert{n}"] = field.convert
                value = f"convert{n}({value})"
            if field.adapt is not None:
                names[f"adapt{n}"] = field.adapt
                value = f"adapt{n}({value}, context)"
            names[f"omit{n}"] = skip = omit if field.omit is _DEFAULT else field.omit
            if skip:
                lines += [
                    f"value = {value}",
                    f"if value not in omit{n}:",
                    f"    out[key{n}] = value",
                ]
            else:
                lines.append(f"out[key{n}] = {value}")
        body = "".join(f"\n    {line}" for line in ["out = {}", *lines, "return out"])
        exec(f"def render(row, context=None):{body}", names)
        return names["render"]

    def row_of(self, instance) -> dict:
        """A model instance as the row `.values(*columns)` reads."""
        return {column: getattr(instance, column) for column in self.columns}

    @property
    def serializer(self) -> type[serializers.Serializer]:
        """`<name>Serializer` (the schema component `<name>`), made once."""
        if self._serializer is None:
            record = self

            def to_representation(self, instance):
                row = instance if record.attributes else record.row_of(instance)
                return record.render(row, self.context)

            attrs = {key: field.schema for key, field in self.fields.items()}
            attrs["to_representation"] = to_representation
            attrs["__module__"] = __name__
            attrs["__doc__"] = self.doc
            self._serializer = type(f"{self.name}Serializer", (serializers.Serializer,), attrs)
        return self._serializer
