"""Gitea's Repository and Activity records. A repository renders from a `.values()` row
(`ROW_COLUMNS`, `ROW_EXPRESSIONS`): no model instance, times written by the database,
the unit settings parsed once per distinct value, not once per row.

Context of a repository rendering (see `repository_context`): `actor`, `access` ({repo id:
Access}), `root` (the external URL) and `host` (the ssh host), `owner_objects` ({owner id:
Owner}) and `owners` (rendered owners, as a page repeats a few), `parents` ({repo id: row}
of forks' parents), `mirrors` ({repo id: row} of mirror settings) and `with_parent` (a
fork shows its parent, one level deep). Rows carry `full_name`, set when the page loads.
"""

import json
from functools import lru_cache

from django.db.models import TextField
from django.db.models.functions import Cast
from rest_framework import serializers

from codehost.access import Access
from codehost.api.serializers.fields import (
    UNIX_ZERO_TIME,
    ZERO_TIME,
    ExternalTrackerSerializer,
    ExternalWikiSerializer,
    GiteaTime,
    InternalTrackerSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    base_url,
    gitea_time,
    settings_domain,
)
from codehost.api.serializers.users import USER
from codehost.models import PULL_DEFAULTS, OpType, UnitType
from codehost.services.mirrors import format_go_duration
from config.records import NIL, Field, Record

# The caller's access to a repository (an access.Access).
PERMISSION = Record(
    "Permission",
    {
        "admin": Field(StrictBooleanField(), "is_admin"),
        "push": Field(StrictBooleanField(), "can_write_code"),
        "pull": Field(StrictBooleanField(), "can_read_code"),
    },
    attributes=True,
)


class ParentRepositorySerializer(serializers.Serializer):
    """Schema stand-in for the nested `parent` (same shape, one level deep)."""

    id = StrictIntegerField()
    name = StrictCharField()
    full_name = StrictCharField()


def repository_context(actor, access: dict) -> dict:
    return {
        "actor": actor,
        "access": access,
        "root": base_url(),
        "host": settings_domain(),
        "owners": {},
        "owner_objects": {},
        "parents": {},
        "mirrors": {},
    }


# Unit keys read for every repository rendered (enum member lookups are not free).
CODE, ISSUES, PULLS, RELEASES, WIKI, EXT_WIKI, EXT_ISSUES, PROJECTS, PACKAGES, ACTIONS = (
    unit.label for unit in UnitType
)
INTERNAL_TRACKER = tuple(InternalTrackerSerializer._declared_fields)
EXTERNAL_TRACKER = tuple(ExternalTrackerSerializer._declared_fields)


def _api_url(row, context) -> str:
    return f"{context['root']}api/v1/repos/{row['full_name']}"


def _owner(row, context) -> dict:
    owners = context["owners"]
    owner_id = row["owner_id"]
    if owner_id not in owners:
        owners[owner_id] = USER.render(context["owner_objects"][owner_id], context)
    return owners[owner_id]


def _parent(row, context) -> dict | None:
    if not (context.get("with_parent") and row["is_fork"] and row["parent_id"]):
        return None
    parent = context["parents"].get(row["parent_id"])
    if parent is None:
        return None
    return REPOSITORY.render(parent, {**context, "with_parent": False})


def _permissions(row, context) -> dict | None:
    access = context["access"].get(row["id"]) or Access()
    return PERMISSION.render(access) if access.can_see else None


# --- what a repository's unit settings show: {wire key: (schema, value from the units)}


def _internal_tracker(units) -> dict | None:
    issues = units.get(ISSUES)
    if issues is None:
        return None
    return {key: bool(issues.get(key, True)) for key in INTERNAL_TRACKER}


def _external_tracker(units) -> dict | None:
    ext_issues = units.get(EXT_ISSUES)
    return (
        None if ext_issues is None else {key: ext_issues.get(key, "") for key in EXTERNAL_TRACKER}
    )


def _external_wiki(units) -> dict | None:
    ext_wiki = units.get(EXT_WIKI)
    return (
        None if ext_wiki is None else {"external_wiki_url": ext_wiki.get("external_wiki_url", "")}
    )


def _has(unit: str):
    """The unit is enabled (its key is there)."""
    return lambda units: unit in units


def _configured(*units: str):
    """One of the units has settings (its value is not null)."""
    return lambda settings: any(settings.get(unit) is not None for unit in units)


def _pull_setting(key: str):
    default = "merge" if key == "default_merge_style" else False

    def get(units):
        pulls = units.get(PULLS)
        return default if pulls is None else pulls.get(key, default)

    return get


def _boolean() -> StrictBooleanField:
    return StrictBooleanField()


def _count() -> StrictIntegerField:
    return StrictIntegerField()


def _text() -> StrictCharField:
    return StrictCharField()


def _nested(serializer):
    """A settings object, left out when its unit is off (nil in Gitea)."""
    return lambda: serializer(required=False)


# {wire key: (schema field factory, value from the units)}; the factories run inside
# REPOSITORY so the schema lists the keys in wire order.
UNIT_FIELDS = {
    "has_code": (_boolean, _has(CODE)),
    "has_issues": (_boolean, _configured(ISSUES, EXT_ISSUES)),
    "internal_tracker": (_nested(InternalTrackerSerializer), _internal_tracker),
    "external_tracker": (_nested(ExternalTrackerSerializer), _external_tracker),
    "has_wiki": (_boolean, lambda units: WIKI in units or units.get(EXT_WIKI) is not None),
    "external_wiki": (_nested(ExternalWikiSerializer), _external_wiki),
    "has_pull_requests": (_boolean, _configured(PULLS)),
    "has_projects": (_boolean, _configured(PROJECTS)),
    "projects_mode": (_text, lambda units: (units.get(PROJECTS) or {}).get("projects_mode", "all")),
    "has_releases": (_boolean, _has(RELEASES)),
    "has_packages": (_boolean, _has(PACKAGES)),
    "has_actions": (_boolean, _has(ACTIONS)),
    # The pull request settings, in the order Gitea writes them.
    **{
        key: (_text if key == "default_merge_style" else _boolean, _pull_setting(key))
        for key in PULL_DEFAULTS
    },
}


def _unit_field(key: str, schema) -> Field:
    field = schema()
    return Field(field, get=_unit(key), omit=NIL if field.required is False else ())


@lru_cache(maxsize=256)
def unit_values(units_json: str) -> dict:
    """{wire key: value} of UNIT_FIELDS for one stored units value (most repositories share
    a handful of values: a page parses each once)."""
    units = json.loads(units_json)
    return {key: value(units) for key, (_, value) in UNIT_FIELDS.items()}


def _unit(key: str):
    return lambda row, context: unit_values(row["units_json"])[key]


@lru_cache(maxsize=256)
def _topics(topics_json: str) -> list[str]:
    return json.loads(topics_json)


def _mirror(row, context) -> dict | None:
    return context["mirrors"].get(row["id"]) if row["is_mirror"] else None


def _mirror_interval(row, context) -> str:
    mirror = _mirror(row, context)
    return format_go_duration(mirror["interval_seconds"]) if mirror else ""


def _mirror_updated(row, context) -> str:
    mirror = _mirror(row, context)
    return (mirror["updated_text"] or ZERO_TIME) if mirror else ZERO_TIME


def _zero_time(zero: str):
    return lambda text: text or zero


REPOSITORY = Record(
    "Repository",
    {
        "id": Field(_count()),
        "owner": Field(USER.serializer(), get=_owner),
        "name": Field(_text()),
        "full_name": Field(_text(), get=lambda row, context: row["full_name"]),
        "description": Field(_text()),
        "empty": Field(_boolean(), "is_empty"),
        "private": Field(_boolean()),
        "fork": Field(_boolean(), "is_fork"),
        "template": Field(_boolean(), "is_template"),
        "parent": Field(ParentRepositorySerializer(required=False), get=_parent, omit=NIL),
        "mirror": Field(_boolean(), "is_mirror"),
        "size": Field(_count(), convert=lambda size: size // 1024),
        "language": Field(_text(), fixed=""),
        "languages_url": Field(
            _text(), get=lambda row, context: f"{_api_url(row, context)}/languages"
        ),
        "html_url": Field(_text(), get=lambda row, context: f"{context['root']}{row['full_name']}"),
        "url": Field(_text(), get=_api_url),
        "link": Field(_text(), fixed=""),
        "ssh_url": Field(
            _text(), get=lambda row, context: f"git@{context['host']}:{row['full_name']}.git"
        ),
        "clone_url": Field(
            _text(), get=lambda row, context: f"{context['root']}{row['full_name']}.git"
        ),
        "original_url": Field(_text()),
        "website": Field(_text()),
        "stars_count": Field(_count(), "num_stars"),
        "forks_count": Field(_count(), "num_forks"),
        "watchers_count": Field(_count(), "num_watches"),
        "branch_count": Field(_count(), "is_empty", convert=lambda empty: 0 if empty else 1),
        "open_issues_count": Field(_count(), fixed=0),
        "open_pr_counter": Field(_count(), fixed=0),
        "release_counter": Field(_count(), fixed=0),
        "default_branch": Field(_text()),
        "archived": Field(_boolean(), "is_archived"),
        "created_at": Field(serializers.DateTimeField(), "created_at_text"),
        "updated_at": Field(serializers.DateTimeField(), "updated_at_text"),
        "archived_at": Field(
            serializers.DateTimeField(), "archived_at_text", convert=_zero_time(UNIX_ZERO_TIME)
        ),
        "permissions": Field(PERMISSION.serializer(required=False), get=_permissions, omit=NIL),
        **{key: _unit_field(key, schema) for key, (schema, _) in UNIT_FIELDS.items()},
        "avatar_url": Field(_text(), fixed=""),
        "internal": Field(
            _boolean(),
            get=lambda row, context: (
                not row["private"]
                and context["owner_objects"][row["owner_id"]].visibility == "private"
            ),
        ),
        "mirror_interval": Field(_text(), get=_mirror_interval),
        "object_format_name": Field(_text(), fixed="sha1"),
        "mirror_updated": Field(serializers.DateTimeField(), get=_mirror_updated),
        "topics": Field(serializers.ListField(child=_text()), "topics_json", convert=_topics),
        "licenses": Field(serializers.ListField(child=_text()), get=lambda row, context: []),
    },
    extra_columns=("owner_id", "parent_id", "units_json"),
)

# What a row is read with beside the record's plain columns.
ROW_EXPRESSIONS = {
    "created_at_text": GiteaTime("created_at"),
    "updated_at_text": GiteaTime("updated_at"),
    "archived_at_text": GiteaTime("archived_at"),
    # Parsed in Python, once per distinct value (see unit_values and _topics).
    "units_json": Cast("units", TextField()),
    "topics_json": Cast("topics", TextField()),
}
ROW_COLUMNS = tuple(column for column in REPOSITORY.columns if column not in ROW_EXPRESSIONS)
MIRROR_EXPRESSIONS = {"updated_text": GiteaTime("updated")}


class SearchResultsSerializer(serializers.Serializer):
    ok = StrictBooleanField()
    data = REPOSITORY.serializer(many=True)


def _activity_repo(activity, context) -> dict | None:
    """The activity's repository, from the page's rows (`context["repos"]`)."""
    row = context["repos"].get(activity.repo_id) if activity.repo_id else None
    return None if row is None else REPOSITORY.render(row, {**context, "with_parent": False})


ACTIVITY = Record(
    "Activity",
    {
        "id": Field(_count(), "pk"),
        "user_id": Field(_count()),
        "op_type": Field(
            serializers.ChoiceField(choices=[op.label for op in OpType]),
            convert=lambda value: OpType(value).label,
        ),
        "act_user_id": Field(_count()),
        "act_user": Field(
            USER.serializer(), get=lambda activity, context: USER.render(activity.act_user, context)
        ),
        "repo_id": Field(_count(), convert=lambda value: value or 0),
        "repo": Field(REPOSITORY.serializer(allow_null=True), get=_activity_repo),
        "comment_id": Field(_count(), fixed=0),
        "comment": Field(serializers.JSONField(allow_null=True), fixed=None),
        "ref_name": Field(_text()),
        "is_private": Field(_boolean()),
        "content": Field(_text()),
        "created": Field(serializers.DateTimeField(), convert=gitea_time),
    },
    attributes=True,
)


TOPIC_NAME = Record(
    "TopicName",
    {"topics": Field(serializers.ListField(child=_text()), convert=list)},
    attributes=True,
)
