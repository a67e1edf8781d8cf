"""Gitea's Repository and Activity records, rendered from model instances.

Context of a repository rendering (see `repository_context`): `actor`, `access` ({repo id:
Access}), `root` (the external URL) and `host` (the ssh host), `owners` (rendered owners, as
a page repeats a few) and `with_parent` (a fork shows its parent, one level deep).
"""

from rest_framework import serializers

from codehost.access import Access
from codehost.api.serializers.fields import (
    UNIX_ZERO_TIME,
    ZERO_TIME,
    ExternalTrackerSerializer,
    ExternalWikiSerializer,
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
from codehost.services.mirrors import format_go_duration, mirror_of
from config.records import NIL, Field, Record


class PermissionSerializer(serializers.Serializer):
    admin = StrictBooleanField()
    push = StrictBooleanField()
    pull = StrictBooleanField()


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
    }


# Unit keys read for every repository rendered (enum member lookups are not free).
CODE, ISSUES, PULLS, RELEASES, WIKI, EXT_WIKI, EXT_ISSUES, PROJECTS, PACKAGES, ACTIONS = (
    unit.label for unit in UnitType
)
INTERNAL_TRACKER = tuple(InternalTrackerSerializer._declared_fields)
EXTERNAL_TRACKER = tuple(ExternalTrackerSerializer._declared_fields)


def _full_name(repo) -> str:
    return f"{repo.owner.name}/{repo.name}"


def _api_url(repo, context) -> str:
    return f"{context['root']}api/v1/repos/{_full_name(repo)}"


def _owner(repo, context) -> dict:
    owners = context["owners"]
    if repo.owner_id not in owners:
        owners[repo.owner_id] = USER.render(repo.owner, context)
    return owners[repo.owner_id]


def _parent(repo, context) -> dict | None:
    if not (context.get("with_parent") and repo.is_fork and repo.parent_id):
        return None
    if repo.parent is None:
        return None
    return REPOSITORY.render(repo.parent, {**context, "with_parent": False})


def _permissions(repo, context) -> dict | None:
    access = context["access"].get(repo.pk) or Access()
    if not access.can_see:
        return None
    return {"admin": access.is_admin, "push": access.can_write_code, "pull": access.can_read_code}


def _internal_tracker(repo, context) -> dict | None:
    issues = repo.units.get(ISSUES)
    if issues is None:
        return None
    return {key: bool(issues.get(key, True)) for key in INTERNAL_TRACKER}


def _external_tracker(repo, context) -> dict | None:
    ext_issues = repo.units.get(EXT_ISSUES)
    return (
        None if ext_issues is None else {key: ext_issues.get(key, "") for key in EXTERNAL_TRACKER}
    )


def _external_wiki(repo, context) -> dict | None:
    ext_wiki = repo.units.get(EXT_WIKI)
    return (
        None if ext_wiki is None else {"external_wiki_url": ext_wiki.get("external_wiki_url", "")}
    )


def _has(unit: str):
    """The unit is enabled (its key is there)."""
    return lambda repo, context: unit in repo.units


def _configured(*units: str):
    """One of the units has settings (its value is not null)."""
    return lambda repo, context: any(repo.units.get(unit) is not None for unit in units)


def _pull_setting(key: str):
    default = "merge" if key == "default_merge_style" else False

    def get(repo, context):
        pulls = repo.units.get(PULLS)
        return default if pulls is None else pulls.get(key, default)

    return get


def _mirror_interval(repo, context) -> str:
    mirror = mirror_of(repo)
    return format_go_duration(mirror.interval_seconds) if mirror else ""


def _mirror_updated(repo, context) -> str:
    mirror = mirror_of(repo)
    return gitea_time(mirror.updated) if mirror else ZERO_TIME


def _boolean() -> StrictBooleanField:
    return StrictBooleanField()


def _count() -> StrictIntegerField:
    return StrictIntegerField()


def _text() -> StrictCharField:
    return StrictCharField()


REPOSITORY = Record(
    "Repository",
    {
        "id": Field(_count(), "pk"),
        "owner": Field(USER.serializer(), get=_owner),
        "name": Field(_text()),
        "full_name": Field(_text(), get=lambda repo, context: _full_name(repo)),
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
            _text(), get=lambda repo, context: f"{_api_url(repo, context)}/languages"
        ),
        "html_url": Field(
            _text(), get=lambda repo, context: f"{context['root']}{_full_name(repo)}"
        ),
        "url": Field(_text(), get=_api_url),
        "link": Field(_text(), fixed=""),
        "ssh_url": Field(
            _text(), get=lambda repo, context: f"git@{context['host']}:{_full_name(repo)}.git"
        ),
        "clone_url": Field(
            _text(), get=lambda repo, context: f"{context['root']}{_full_name(repo)}.git"
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
        "created_at": Field(serializers.DateTimeField(), convert=gitea_time),
        "updated_at": Field(serializers.DateTimeField(), convert=gitea_time),
        "archived_at": Field(
            serializers.DateTimeField(),
            convert=lambda value: gitea_time(value, UNIX_ZERO_TIME),
        ),
        "permissions": Field(PermissionSerializer(required=False), get=_permissions, omit=NIL),
        "has_code": Field(_boolean(), get=_has(CODE)),
        "has_issues": Field(_boolean(), get=_configured(ISSUES, EXT_ISSUES)),
        "internal_tracker": Field(
            InternalTrackerSerializer(required=False), get=_internal_tracker, omit=NIL
        ),
        "external_tracker": Field(
            ExternalTrackerSerializer(required=False), get=_external_tracker, omit=NIL
        ),
        "has_wiki": Field(
            _boolean(),
            get=lambda repo, context: WIKI in repo.units or repo.units.get(EXT_WIKI) is not None,
        ),
        "external_wiki": Field(
            ExternalWikiSerializer(required=False), get=_external_wiki, omit=NIL
        ),
        "has_pull_requests": Field(_boolean(), get=_configured(PULLS)),
        "has_projects": Field(_boolean(), get=_configured(PROJECTS)),
        "projects_mode": Field(
            _text(),
            get=lambda repo, context: (repo.units.get(PROJECTS) or {}).get("projects_mode", "all"),
        ),
        "has_releases": Field(_boolean(), get=_has(RELEASES)),
        "has_packages": Field(_boolean(), get=_has(PACKAGES)),
        "has_actions": Field(_boolean(), get=_has(ACTIONS)),
        # The pull request settings, in the order Gitea writes them.
        **{
            key: Field(
                _text() if key == "default_merge_style" else _boolean(), get=_pull_setting(key)
            )
            for key in PULL_DEFAULTS
        },
        "avatar_url": Field(_text(), fixed=""),
        "internal": Field(
            _boolean(),
            get=lambda repo, context: not repo.private and repo.owner.visibility == "private",
        ),
        "mirror_interval": Field(_text(), get=_mirror_interval),
        "object_format_name": Field(_text(), fixed="sha1"),
        "mirror_updated": Field(serializers.DateTimeField(), get=_mirror_updated),
        "topics": Field(serializers.ListField(child=_text()), convert=list),
        "licenses": Field(serializers.ListField(child=_text()), get=lambda repo, context: []),
    },
    attributes=True,
)


class SearchResultsSerializer(serializers.Serializer):
    ok = StrictBooleanField()
    data = REPOSITORY.serializer(many=True)


def _activity_repo(activity, context) -> dict | None:
    if not activity.repo_id:
        return None
    return REPOSITORY.render(activity.repo, {**context, "with_parent": False})


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


class TopicNameSerializer(serializers.Serializer):
    topics = serializers.ListField(child=_text())
