"""Fields, times and URLs every Gitea wire shape shares.

Go's JSON binder refuses a number where a string is declared and vice versa; DRF would
coerce. The strict fields keep the declared types (forms still send "true"/"false").
"""

from datetime import UTC, datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import CharField, Func
from rest_framework import serializers

from codehost.models import Owner
from config.limits import INT64_MAX, INT64_MIN

ZERO_TIME = "0001-01-01T00:00:00+00:00"
UNIX_ZERO_TIME = "1970-01-01T00:00:00+00:00"


def gitea_time(value: datetime | None, zero: str = ZERO_TIME) -> str:
    """RFC 3339, whole seconds, numeric offset (py-gitea cannot parse fractions nor `Z`)."""
    if value is None:
        return zero
    return value.astimezone(UTC).replace(microsecond=0).isoformat()


class GiteaTime(Func):
    """`gitea_time` written by the database, for lists read as `.values()` rows: a page of
    50 repositories spares 150 datetime conversions and formattings. NULL stays NULL (the
    caller puts its zero value). Both forms truncate the fraction, as `gitea_time` does."""

    output_field = CharField()

    def as_sqlite(self, compiler, connection, **extra):
        # Django stores UTC as "YYYY-MM-DD HH:MM:SS[.ffffff]"; datetime() normalizes it
        # (and drops the fraction) without a strftime pattern, whose "%" the backend's
        # placeholder translation would alter.
        template = "replace(datetime(%(expressions)s), ' ', 'T') || '+00:00'"
        return self.as_sql(compiler, connection, template=template, **extra)

    def as_postgresql(self, compiler, connection, **extra):
        template = (
            "to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || '+00:00'"
        )
        return self.as_sql(compiler, connection, template=template, **extra)


def base_url() -> str:
    return settings.EXTERNAL_URL + "/"


def avatar_url(owner: Owner) -> str:
    return f"{base_url()}avatars/{owner.lower_name}"


def settings_domain() -> str:
    return urlsplit(settings.EXTERNAL_URL).hostname or "localhost"


# --- strict fields ---------------------------------------------------------------------


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictRegexField(serializers.RegexField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        if isinstance(data, str) and data.strip().lower() in ("true", "false"):
            return data.strip().lower() == "true"
        self.fail("invalid", input=data)


GIT_BRANCH_NAME = (
    r"^(?![-./])(?!.*(?:\.\.|//|@\{|/\.|\.lock/))(?!.*(?:[/.]|\.lock)$)"
    r"[^\s~^:?*\[\\\x00-\x1f\x7f]+$"
)


class StrictIntegerField(serializers.IntegerField):
    """An integer in Gitea's int64 range (its Go fields are int64)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", INT64_MIN)
        kwargs.setdefault("max_value", INT64_MAX)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | str):
            self.fail("invalid")
        return super().to_internal_value(data)


# --- nested objects of a repository and of its edit body -------------------------------


class InternalTrackerSerializer(serializers.Serializer):
    enable_time_tracker = StrictBooleanField(required=False)
    allow_only_contributors_to_track_time = StrictBooleanField(required=False)
    enable_issue_dependencies = StrictBooleanField(required=False)


class ExternalTrackerSerializer(serializers.Serializer):
    external_tracker_url = StrictCharField(required=False, allow_blank=True)
    external_tracker_format = StrictCharField(required=False, allow_blank=True)
    external_tracker_style = StrictCharField(required=False, allow_blank=True)
    external_tracker_regexp_pattern = StrictCharField(required=False, allow_blank=True)


class ExternalWikiSerializer(serializers.Serializer):
    external_wiki_url = StrictCharField(required=False, allow_blank=True)
