"""Fields and rules every Harbor wire record shares.

Output follows go-swagger's rules (harbor.md §1): keys in alphabetical order, zero
scalars omitted unless listed in `always`, arrays always present (null when unset),
maps omitted when nil, times in UTC with milliseconds.
"""

from datetime import UTC

from django.db.models import CharField, Func
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.records import ZERO, Field, Record

ZERO_TIME = "0001-01-01T00:00:00.000Z"


def harbor_time(value) -> str | None:
    if value is None:
        return None
    # isoformat truncates to milliseconds as Harbor does, and is faster than strftime.
    return value.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


class HarborTime(Func):
    """A time column as `harbor_time` writes it, formatted by the database: a page of rows
    then holds no datetime for Python to convert and format. Both branches truncate to
    milliseconds, as `harbor_time` does."""

    arity = 1
    output_field = CharField()

    def as_sqlite(self, compiler, connection, **extra_context):
        # Django keeps UTC times on SQLite as 'YYYY-MM-DD HH:MM:SS[.ffffff]' text.
        column, params = compiler.compile(self.source_expressions[0])
        fraction = f"substr(substr({column}, 21) || '000', 1, 3)"
        sql = (
            f"substr({column}, 1, 10) || 'T' || substr({column}, 12, 8) || '.' || {fraction} || 'Z'"
        )
        return sql, params * 4

    def as_postgresql(self, compiler, connection, **extra_context):
        column, params = compiler.compile(self.source_expressions[0])
        return f"""to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')""", params


def harbor_times(*columns: str) -> dict:
    """Annotations `<column>_text`: the columns as Harbor's time text (HarborTime)."""
    return {f"{column}_text": HarborTime(column) for column in columns}


class HarborTimeField(serializers.Field):
    def __init__(self, zero_when_missing: bool = False, **kwargs):
        self.zero_when_missing = zero_when_missing
        kwargs.setdefault("required", False)
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        return ZERO_TIME if value is None and self.zero_when_missing else value

    def to_representation(self, value):
        return value if isinstance(value, str) else harbor_time(value)


extend_schema_field(OpenApiTypes.DATETIME)(HarborTimeField)


class HarborSerializer(serializers.Serializer):
    """Output serializer with go-swagger's omit-empty and key order."""

    # Scalars always emitted even when zero; arrays listed in `arrays` are always emitted.
    always: frozenset = frozenset()
    arrays: frozenset = frozenset()

    def to_representation(self, instance):
        return go_swagger(super().to_representation(instance), self.always, self.arrays)


def go_swagger(data: dict, always: frozenset = frozenset(), arrays: frozenset = frozenset()):
    """A record as go-swagger writes it: keys sorted, zero scalars dropped unless in
    `always`, empty arrays in `arrays` written as null."""
    out = {}
    for key in sorted(data):
        value = data[key]
        if key in arrays:
            out[key] = value if value else None
        elif key in always or value not in ZERO:
            out[key] = value
    return out


def harbor_record(name: str, fields: dict[str, Field], **options) -> Record:
    """A go-swagger output record: keys sorted, zero values left out unless a field says
    `omit=ALWAYS`."""
    options.setdefault("doc", HarborSerializer.__doc__)
    return Record(name, fields, omit=ZERO, sort_keys=True, **options)


ALWAYS = ()  # omit nothing


def null_when_empty(value):
    """go-swagger writes an empty array as null; the key is always there."""
    return value or None


def time_or_zero(value) -> str:
    """A time Harbor reads from a non-pointer field: zero time when unset."""
    return harbor_time(value) or ZERO_TIME


def _out(field_class, **kwargs):
    """An output field: never required, so omitted keys still match the published schema."""
    kwargs.setdefault("required", False)
    return field_class(**kwargs)


# --- strict request fields (go-swagger rejects a value of the wrong JSON type) ---------------


class StrictCharField(serializers.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data):
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StringMapField(serializers.DictField):
    """A JSON object whose values are all strings."""

    child = StrictCharField(allow_blank=True)


@extend_schema_field(
    {
        "type": "object",
        "properties": {"public": {"type": "string", "enum": ["true", "false"]}},
        "additionalProperties": {"type": "string", "maxLength": 255},
    }
)
class ProjectMetadataField(StringMapField):
    """Project metadata in a request: `public`, when given, is "true" or "false"."""


NAME_PATTERN = r'^[^,"~#%$]+$'


def documented(field, **schema):
    """A field whose published schema states rules the service checks itself (Harbor
    answers them with 400 and its own message, not with a 422 validation failure).

    Serializers deep-copy their fields from the constructor arguments, so the schema
    goes on a subclass rather than on the instance."""
    annotated = extend_schema_field(schema)(type(type(field).__name__, (type(field),), {}))
    return annotated(*field._args, **field._kwargs)


class PlainStringField(serializers.Field):
    """Any JSON string, empty included; its rules are the service's (see `documented`)."""

    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


def documented_string(required: bool = True, write_only: bool = False, **schema):
    return documented(
        PlainStringField(required=required, write_only=write_only), type="string", **schema
    )


# --- errors ---------------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class ErrorsSerializer(serializers.Serializer):
    errors = ErrorSerializer(many=True)
