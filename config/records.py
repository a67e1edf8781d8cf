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
        reader = attrgetter if attributes else itemgetter
        self.columns = tuple(
            dict.fromkeys(
                (*(f.column or key for key, f in fields.items() if f.reads), *extra_columns)
            )
        )
        order = sorted(fields) if sort_keys else list(fields)
        self.attributes = attributes
        self._plan = tuple(
            (
                key,
                reader(field.column or key) if field.reads else None,
                field.get,
                field.fixed,
                field.convert,
                field.adapt,
                omit if field.omit is _DEFAULT else field.omit,
            )
            for key, field in ((key, fields[key]) for key in order)
        )
        self._serializer = None

    def render(self, row, context: dict | None = None) -> dict:
        out = {}
        for key, read, get, fixed, convert, adapt, omit in self._plan:
            if read is not None:
                value = read(row)
            elif get is not None:
                value = get(row, context)
            else:
                value = fixed
            if convert is not None:
                value = convert(value)
            if adapt is not None:
                value = adapt(value, context)
            if omit and value in omit:
                continue
            out[key] = value
        return out

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
