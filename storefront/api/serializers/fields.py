"""Fields every Tiendanube wire shape shares: timestamps, internationalized values,
money, stock, secure URLs, and the profile fields this service does not keep."""

import datetime

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.limits import INT32_MAX

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
BLANK = "can't be blank"


@extend_schema_field(
    {
        "type": "string",
        "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$",
        "example": "2024-05-02T14:03:11+0000",
    }
)
class TimestampField(serializers.DateTimeField):
    """`2024-05-02T14:03:11+0000`: whole seconds, UTC, offset without a colon."""

    def __init__(self, **kwargs):
        super().__init__(
            format=TIME_FORMAT, default_timezone=datetime.UTC, read_only=True, **kwargs
        )


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise serializers.ValidationError("Null characters are not allowed.")
    return value


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {"type": "object", "additionalProperties": {"type": "string", "nullable": True}},
        ],
        "description": "Object keyed by language code; a plain string applies to every language",
    }
)
class I18nField(serializers.Field):
    """An internationalized value: always an object keyed by the store's languages."""

    default_error_messages = {
        "invalid": "Must be a string or an object keyed by language code.",
        "language": "Unknown language {code}; the store's languages are {languages}.",
        "value": "The value for {code} must be a string.",
        "max_length": "Ensure this field has no more than {max_length} characters.",
        "blank": BLANK,
        "required": BLANK,
        "null": BLANK,
    }

    def __init__(self, *, max_length: int | None = None, allow_blank: bool = True, **kwargs):
        self.max_length = max_length
        self.allow_blank = allow_blank
        super().__init__(**kwargs)

    @property
    def languages(self) -> list[str]:
        return self.context["store"].languages

    def to_representation(self, value):
        value = value if isinstance(value, dict) else {}
        return {code: value.get(code) or "" for code in self.languages}

    def to_internal_value(self, data):
        if isinstance(data, str):
            values = dict.fromkeys(self.languages, data)
        elif isinstance(data, dict):
            values = {}
            for code, text in data.items():
                if code not in self.languages:
                    self.fail("language", code=code, languages=", ".join(self.languages))
                if text is not None and not isinstance(text, str):
                    self.fail("value", code=code)
                values[code] = text or ""
        else:
            self.fail("invalid")
        for text in values.values():
            _no_nul(text)
            if self.max_length and len(text) > self.max_length:
                self.fail("max_length", max_length=self.max_length)
        if not self.allow_blank and not any(text.strip() for text in values.values()):
            self.fail("blank")
        return values


def _decimal(digits: int = 14, places: int = 2, **kwargs):
    return serializers.DecimalField(
        max_digits=digits, decimal_places=places, min_value=0, coerce_to_string=True, **kwargs
    )


class StockField(serializers.IntegerField):
    """An integer, or null / "" for stock that is not managed (infinite)."""

    def __init__(self, **kwargs):
        super().__init__(min_value=-INT32_MAX, max_value=INT32_MAX, allow_null=True, **kwargs)

    def validate_empty_values(self, data):
        if data == "":
            return True, None
        return super().validate_empty_values(data)


class SecureURLField(serializers.URLField):
    default_error_messages = {"insecure": "The video url field is not a secure url"}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not value.lower().startswith("https://"):
            self.fail("insecure")
        return value


@extend_schema_field({"type": "string", "nullable": True})
class NullField(serializers.Field):
    """A Tiendanube store profile field this service does not keep: always null."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value):
        return None
