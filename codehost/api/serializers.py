"""Gitea v1 wire shapes. The only module that knows wire field names.

Output serializers build their dicts directly (key order as Gitea emits them; a page of 50
repositories is rendered without per-field overhead); their declared fields describe the
schema. Context: `actor` (the caller), `access` ({repo id: Access}) for repositories.
"""

from datetime import UTC, datetime

from django.conf import settings
from rest_framework import serializers

from codehost.access import Access, Actor
from codehost.errors import Invalid
from codehost.models import PULL_DEFAULTS, AccessMode, OpType, Owner, Repository, Team, UnitType
from codehost.services.mirrors import format_go_duration, mirror_of
from config.limits import INT64_MAX, INT64_MIN

ZERO_TIME = "0001-01-01T00:00:00+00:00"
UNIX_ZERO_TIME = "1970-01-01T00:00:00+00:00"


def gitea_time(value: datetime | None, zero: str = ZERO_TIME) -> str:
    """RFC 3339, whole seconds, numeric offset (py-gitea cannot parse fractions nor `Z`)."""
    if value is None:
        return zero
    return value.astimezone(UTC).replace(microsecond=0).isoformat()


def base_url() -> str:
    return settings.EXTERNAL_URL + "/"


def avatar_url(owner: Owner) -> str:
    return f"{base_url()}avatars/{owner.lower_name}"


# --- strict input fields ---------------------------------------------------------------
# Go's JSON binder refuses a number where a string is declared and vice versa; DRF would
# coerce. These keep the declared types (forms still send "true"/"false" strings).


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


# --- users and organizations -----------------------------------------------------------


class UserSerializer(serializers.Serializer):
    id = StrictIntegerField()
    login = StrictCharField()
    login_name = StrictCharField()
    source_id = StrictIntegerField()
    full_name = StrictCharField()
    email = StrictCharField()
    avatar_url = StrictCharField()
    html_url = StrictCharField()
    language = StrictCharField()
    is_admin = StrictBooleanField()
    last_login = serializers.DateTimeField()
    created = serializers.DateTimeField()
    restricted = StrictBooleanField()
    active = StrictBooleanField()
    prohibit_login = StrictBooleanField()
    location = StrictCharField()
    website = StrictCharField()
    description = StrictCharField()
    visibility = StrictCharField()
    followers_count = StrictIntegerField()
    following_count = StrictIntegerField()
    starred_repos_count = StrictIntegerField()
    username = StrictCharField()

    def to_representation(self, owner: Owner) -> dict:
        return render_user(owner, self.context)


def render_user(owner: Owner, context: dict) -> dict:
    """A User object; self-only fields are blank unless the caller is that user or an admin."""
    actor: Actor = context.get("actor") or Actor()
    is_self = actor.owner is not None and actor.owner.pk == owner.pk
    private_view = actor.is_admin or is_self
    # The account is only read for the private view; the caller's own is already loaded.
    account = None
    if private_view and owner.user_id:
        account = actor.owner.user if is_self else owner.user
    if owner.is_organization:
        email = owner.email if actor.signed_in else ""
    elif actor.signed_in and owner.email:
        email = owner.email
    else:
        email = f"{owner.pk}+{owner.lower_name}@noreply.{settings_domain()}"
    return {
        "id": owner.pk,
        "login": owner.name,
        "login_name": "",
        "source_id": 0,
        "full_name": owner.full_name,
        "email": email,
        "avatar_url": avatar_url(owner),
        "html_url": f"{base_url()}{owner.name}",
        "language": "en-US" if private_view else "",
        "is_admin": bool(private_view and account and account.is_superuser),
        "last_login": gitea_time(account.last_login if private_view and account else None),
        "created": gitea_time(owner.created_at),
        "restricted": False,
        "active": bool(private_view and account and account.is_active),
        "prohibit_login": False,
        "location": owner.location,
        "website": owner.website,
        "description": owner.description,
        "visibility": owner.visibility,
        "followers_count": 0,
        "following_count": 0,
        "starred_repos_count": owner.num_stars,
        "username": owner.name,
    }


def settings_domain() -> str:
    from urllib.parse import urlsplit

    return urlsplit(settings.EXTERNAL_URL).hostname or "localhost"


class OrganizationSerializer(serializers.Serializer):
    id = StrictIntegerField()
    name = StrictCharField()
    full_name = StrictCharField()
    email = StrictCharField()
    avatar_url = StrictCharField()
    description = StrictCharField()
    website = StrictCharField()
    location = StrictCharField()
    visibility = StrictCharField()
    repo_admin_change_team_access = StrictBooleanField()
    username = StrictCharField()

    def to_representation(self, org: Owner) -> dict:
        return render_org(org, self.context)


def render_org(org: Owner, context: dict) -> dict:
    actor: Actor = context.get("actor") or Actor()
    return {
        "id": org.pk,
        "name": org.name,
        "full_name": org.full_name,
        "email": org.email if actor.signed_in else "",
        "avatar_url": avatar_url(org),
        "description": org.description,
        "website": org.website,
        "location": org.location,
        "visibility": org.visibility,
        "repo_admin_change_team_access": org.repo_admin_change_team_access,
        "username": org.name,
    }


# --- teams -------------------------------------------------------------------------------


class TeamSerializer(serializers.Serializer):
    id = StrictIntegerField()
    name = StrictCharField()
    description = StrictCharField()
    organization = OrganizationSerializer(allow_null=True)
    includes_all_repositories = StrictBooleanField()
    permission = serializers.ChoiceField(choices=[m.label for m in AccessMode])
    units = serializers.ListField(child=StrictCharField(), allow_null=True)
    units_map = serializers.DictField(child=StrictCharField())
    can_create_org_repo = StrictBooleanField()

    def to_representation(self, team: Team) -> dict:
        return render_team(team, self.context, self.context.get("with_org", False))


UNIT_ORDER = {unit.label: unit.value for unit in UnitType}
MODE_NAMES = {mode.value: mode.label for mode in AccessMode}


def render_team(team: Team, context: dict, with_org: bool) -> dict:
    mode = MODE_NAMES[team.access_mode]
    if team.access_mode >= AccessMode.ADMIN:
        units_map = dict.fromkeys(UNIT_ORDER, mode)
    else:
        units_map = {key: MODE_NAMES[value] for key, value in team.units.items()}
    return {
        "id": team.pk,
        "name": team.name,
        "description": team.description,
        "organization": render_org(team.org, context) if with_org else None,
        "includes_all_repositories": team.includes_all_repositories,
        "permission": mode,
        "units": sorted(units_map, key=lambda key: UNIT_ORDER.get(key, 99)) or None,
        "units_map": dict(sorted(units_map.items())),
        "can_create_org_repo": team.can_create_org_repo,
    }


class TeamSearchResultsSerializer(serializers.Serializer):
    ok = StrictBooleanField()
    data = TeamSerializer(many=True)


# --- repositories -----------------------------------------------------------------------


class PermissionSerializer(serializers.Serializer):
    admin = StrictBooleanField()
    push = StrictBooleanField()
    pull = StrictBooleanField()


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


class ParentRepositorySerializer(serializers.Serializer):
    """Schema stand-in for the nested `parent` (same shape, one level deep)."""

    id = StrictIntegerField()
    name = StrictCharField()
    full_name = StrictCharField()


class RepositorySerializer(serializers.Serializer):
    id = StrictIntegerField()
    owner = UserSerializer()
    name = StrictCharField()
    full_name = StrictCharField()
    description = StrictCharField()
    empty = StrictBooleanField()
    private = StrictBooleanField()
    fork = StrictBooleanField()
    template = StrictBooleanField()
    parent = ParentRepositorySerializer(required=False)
    mirror = StrictBooleanField()
    size = StrictIntegerField()
    language = StrictCharField()
    languages_url = StrictCharField()
    html_url = StrictCharField()
    url = StrictCharField()
    link = StrictCharField()
    ssh_url = StrictCharField()
    clone_url = StrictCharField()
    original_url = StrictCharField()
    website = StrictCharField()
    stars_count = StrictIntegerField()
    forks_count = StrictIntegerField()
    watchers_count = StrictIntegerField()
    branch_count = StrictIntegerField()
    open_issues_count = StrictIntegerField()
    open_pr_counter = StrictIntegerField()
    release_counter = StrictIntegerField()
    default_branch = StrictCharField()
    archived = StrictBooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    archived_at = serializers.DateTimeField()
    permissions = PermissionSerializer(required=False)
    has_code = StrictBooleanField()
    has_issues = StrictBooleanField()
    internal_tracker = InternalTrackerSerializer(required=False)
    external_tracker = ExternalTrackerSerializer(required=False)
    has_wiki = StrictBooleanField()
    external_wiki = ExternalWikiSerializer(required=False)
    has_pull_requests = StrictBooleanField()
    has_projects = StrictBooleanField()
    projects_mode = StrictCharField()
    has_releases = StrictBooleanField()
    has_packages = StrictBooleanField()
    has_actions = StrictBooleanField()
    ignore_whitespace_conflicts = StrictBooleanField()
    allow_merge_commits = StrictBooleanField()
    allow_rebase = StrictBooleanField()
    allow_rebase_explicit = StrictBooleanField()
    allow_squash_merge = StrictBooleanField()
    allow_fast_forward_only_merge = StrictBooleanField()
    allow_rebase_update = StrictBooleanField()
    allow_manual_merge = StrictBooleanField()
    autodetect_manual_merge = StrictBooleanField()
    default_delete_branch_after_merge = StrictBooleanField()
    default_merge_style = StrictCharField()
    default_allow_maintainer_edit = StrictBooleanField()
    avatar_url = StrictCharField()
    internal = StrictBooleanField()
    mirror_interval = StrictCharField()
    object_format_name = StrictCharField()
    mirror_updated = serializers.DateTimeField()
    topics = serializers.ListField(child=StrictCharField())
    licenses = serializers.ListField(child=StrictCharField())

    def to_representation(self, repo: Repository) -> dict:
        return render_repository(repo, self.context, with_parent=True)


# Unit keys read for every repository rendered (enum member lookups are not free).
CODE, ISSUES, PULLS, RELEASES, WIKI, EXT_WIKI, EXT_ISSUES, PROJECTS, PACKAGES, ACTIONS = (
    unit.label for unit in UnitType
)


def render_repository(repo: Repository, context: dict, with_parent: bool) -> dict:
    access: Access = (context.get("access") or {}).get(repo.pk) or Access()
    mirror = mirror_of(repo)
    owner = repo.owner
    units = repo.units
    full_name = f"{owner.name}/{repo.name}"
    root = base_url()
    api_url = f"{root}api/v1/repos/{full_name}"
    if "host" not in context:
        context["host"] = settings_domain()
    host = context["host"]
    # A page usually repeats a few owners: each is rendered once and its dict reused.
    rendered_owners = context.setdefault("rendered_owners", {})
    if owner.pk not in rendered_owners:
        rendered_owners[owner.pk] = render_user(owner, context)
    data = {
        "id": repo.pk,
        "owner": rendered_owners[owner.pk],
        "name": repo.name,
        "full_name": full_name,
        "description": repo.description,
        "empty": repo.is_empty,
        "private": repo.private,
        "fork": repo.is_fork,
        "template": repo.is_template,
    }
    if with_parent and repo.is_fork and repo.parent_id and repo.parent is not None:
        data["parent"] = render_repository(repo.parent, context, with_parent=False)
    data.update(
        {
            "mirror": repo.is_mirror,
            "size": repo.size // 1024,
            "language": "",
            "languages_url": f"{api_url}/languages",
            "html_url": f"{root}{full_name}",
            "url": api_url,
            "link": "",
            "ssh_url": f"git@{host}:{full_name}.git",
            "clone_url": f"{root}{full_name}.git",
            "original_url": repo.original_url,
            "website": repo.website,
            "stars_count": repo.num_stars,
            "forks_count": repo.num_forks,
            "watchers_count": repo.num_watches,
            "branch_count": 0 if repo.is_empty else 1,
            "open_issues_count": 0,
            "open_pr_counter": 0,
            "release_counter": 0,
            "default_branch": repo.default_branch,
            "archived": repo.is_archived,
            "created_at": gitea_time(repo.created_at),
            "updated_at": gitea_time(repo.updated_at),
            "archived_at": gitea_time(repo.archived_at, UNIX_ZERO_TIME),
        }
    )
    if access.can_see:
        data["permissions"] = {
            "admin": access.is_admin,
            "push": access.can_write_code,
            "pull": access.can_read_code,
        }
    issues = units.get(ISSUES)
    ext_issues = units.get(EXT_ISSUES)
    wiki = WIKI in units
    ext_wiki = units.get(EXT_WIKI)
    pulls = units.get(PULLS)
    projects = units.get(PROJECTS)
    data["has_code"] = CODE in units
    data["has_issues"] = issues is not None or ext_issues is not None
    if issues is not None:
        data["internal_tracker"] = {
            key: bool(issues.get(key, True))
            for key in (
                "enable_time_tracker",
                "allow_only_contributors_to_track_time",
                "enable_issue_dependencies",
            )
        }
    if ext_issues is not None:
        data["external_tracker"] = {
            key: ext_issues.get(key, "")
            for key in (
                "external_tracker_url",
                "external_tracker_format",
                "external_tracker_style",
                "external_tracker_regexp_pattern",
            )
        }
    data["has_wiki"] = wiki or ext_wiki is not None
    if ext_wiki is not None:
        data["external_wiki"] = {"external_wiki_url": ext_wiki.get("external_wiki_url", "")}
    data["has_pull_requests"] = pulls is not None
    data["has_projects"] = projects is not None
    data["projects_mode"] = (projects or {}).get("projects_mode", "all")
    data["has_releases"] = RELEASES in units
    data["has_packages"] = PACKAGES in units
    data["has_actions"] = ACTIONS in units
    for key in PULL_DEFAULTS:
        if pulls is None:
            data[key] = "merge" if key == "default_merge_style" else False
        else:
            default = "merge" if key == "default_merge_style" else False
            data[key] = pulls.get(key, default)
    data.update(
        {
            "avatar_url": "",
            "internal": not repo.private and owner.visibility == "private",
            "mirror_interval": format_go_duration(mirror.interval_seconds) if mirror else "",
            "object_format_name": "sha1",
            "mirror_updated": gitea_time(mirror.updated) if mirror else ZERO_TIME,
            "topics": list(repo.topics),
            "licenses": [],
        }
    )
    return data


class SearchResultsSerializer(serializers.Serializer):
    ok = StrictBooleanField()
    data = RepositorySerializer(many=True)


class ActivitySerializer(serializers.Serializer):
    id = StrictIntegerField()
    user_id = StrictIntegerField()
    op_type = serializers.ChoiceField(choices=[op.label for op in OpType])
    act_user_id = StrictIntegerField()
    act_user = UserSerializer()
    repo_id = StrictIntegerField()
    repo = RepositorySerializer(allow_null=True)
    comment_id = StrictIntegerField()
    comment = serializers.JSONField(allow_null=True)
    ref_name = StrictCharField()
    is_private = StrictBooleanField()
    content = StrictCharField()
    created = serializers.DateTimeField()

    def to_representation(self, activity) -> dict:
        return {
            "id": activity.pk,
            "user_id": activity.user_id,
            "op_type": OpType(activity.op_type).label,
            "act_user_id": activity.act_user_id,
            "act_user": render_user(activity.act_user, self.context),
            "repo_id": activity.repo_id or 0,
            "repo": (
                render_repository(activity.repo, self.context, with_parent=False)
                if activity.repo_id
                else None
            ),
            "comment_id": 0,
            "comment": None,
            "ref_name": activity.ref_name,
            "is_private": activity.is_private,
            "content": activity.content,
            "created": gitea_time(activity.created),
        }


class AccessTokenSerializer(serializers.Serializer):
    id = StrictIntegerField()
    name = StrictCharField()
    sha1 = StrictCharField()
    token_last_eight = StrictCharField()
    scopes = serializers.ListField(child=StrictCharField())
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField()

    def to_representation(self, token) -> dict:
        return {
            "id": token.pk,
            "name": token.name,
            # The token itself is shown once, in the creation answer only.
            "sha1": self.context.get("raw_token", ""),
            "token_last_eight": token.token_last_eight,
            "scopes": token.scope_list,
            "created_at": gitea_time(token.created_at),
            "last_used_at": gitea_time(token.last_used_at),
        }


class VersionSerializer(serializers.Serializer):
    version = StrictCharField()


class APISettingsSerializer(serializers.Serializer):
    max_response_items = StrictIntegerField()
    default_paging_num = StrictIntegerField()
    default_git_trees_per_page = StrictIntegerField()
    default_max_blob_size = StrictIntegerField()
    default_max_response_size = StrictIntegerField()


class TopicNameSerializer(serializers.Serializer):
    topics = serializers.ListField(child=StrictCharField())


# --- request bodies (option objects) --------------------------------------------------------

RULES = {
    "required": "Required",
    "null": "Required",
    "blank": "Required",
    "max_length": "MaxSize",
    "invalid_choice": "In",
    "invalid": "Invalid",
    "not_a_list": "Invalid",
    "not_a_dict": "Invalid",
}


def go_name(field: str) -> str:
    """`units_map` -> `UnitsMap`: Gitea names the Go struct field in binding errors."""
    return "".join(part[:1].upper() + part[1:] for part in field.split("_"))


def parse_body(serializer_class, data) -> dict:
    """Validated option values (only the keys that were sent), or 422 in Gitea's words."""
    if not isinstance(data, dict):
        try:
            data = data.dict()
        except AttributeError as exc:
            raise Invalid("[]: json: cannot unmarshal into the option object") from exc
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        field, errors = next(iter(serializer.errors.items()))
        code = getattr(errors[0], "code", "invalid") if isinstance(errors, list) else "invalid"
        raise Invalid(f"[{go_name(field)}]: {RULES.get(code, 'Invalid')}")
    return serializer.validated_data


class CreateUserOptionSerializer(serializers.Serializer):
    username = StrictCharField(max_length=40)
    email = serializers.EmailField(max_length=254)
    password = StrictCharField(required=False, allow_blank=True, max_length=255)
    full_name = StrictCharField(required=False, allow_blank=True, max_length=100)
    login_name = StrictCharField(required=False, allow_blank=True)
    source_id = StrictIntegerField(required=False)
    must_change_password = StrictBooleanField(required=False, allow_null=True)
    send_notify = StrictBooleanField(required=False)
    restricted = StrictBooleanField(required=False, allow_null=True)
    visibility = serializers.ChoiceField(
        choices=["", "public", "limited", "private"], required=False
    )


class CreateAccessTokenOptionSerializer(serializers.Serializer):
    name = StrictCharField(max_length=255)
    scopes = serializers.ListField(child=StrictCharField(), required=False)


class CreateOrgOptionSerializer(serializers.Serializer):
    username = StrictCharField(max_length=40)
    full_name = StrictCharField(required=False, allow_blank=True, max_length=100)
    email = StrictCharField(required=False, allow_blank=True, max_length=255)
    description = StrictCharField(required=False, allow_blank=True, max_length=255)
    website = StrictCharField(required=False, allow_blank=True, max_length=255)
    location = StrictCharField(required=False, allow_blank=True, max_length=50)
    visibility = serializers.ChoiceField(
        choices=["", "public", "limited", "private"], required=False
    )
    repo_admin_change_team_access = StrictBooleanField(required=False)


UNIT_NAMES = [unit.label for unit in UnitType]


class CreateTeamOptionSerializer(serializers.Serializer):
    name = StrictCharField(max_length=255)
    description = StrictCharField(required=False, allow_blank=True, max_length=255)
    includes_all_repositories = StrictBooleanField(required=False)
    permission = serializers.ChoiceField(
        choices=["read", "write", "admin"], required=False, allow_blank=True
    )
    units = serializers.ListField(child=StrictCharField(), required=False, allow_null=True)
    units_map = serializers.DictField(
        child=StrictCharField(allow_blank=True), required=False, allow_null=True
    )
    can_create_org_repo = StrictBooleanField(required=False)


class EditTeamOptionSerializer(CreateTeamOptionSerializer):
    name = StrictCharField(max_length=255, required=False, allow_blank=True)
    description = StrictCharField(required=False, allow_blank=True, allow_null=True, max_length=255)
    includes_all_repositories = StrictBooleanField(required=False, allow_null=True)
    can_create_org_repo = StrictBooleanField(required=False, allow_null=True)


class CreateRepoOptionSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100)
    description = StrictCharField(required=False, allow_blank=True, max_length=2048)
    private = StrictBooleanField(required=False)
    issue_labels = StrictCharField(
        required=False, allow_blank=True, allow_null=True, max_length=255
    )
    auto_init = StrictBooleanField(required=False)
    template = StrictBooleanField(required=False)
    gitignores = StrictCharField(required=False, allow_blank=True, allow_null=True)
    license = StrictCharField(required=False, allow_blank=True, allow_null=True, max_length=100)
    readme = StrictCharField(required=False, allow_blank=True, allow_null=True, max_length=255)
    # Gitea's GitRefName: what `git check-ref-format --branch` accepts, so git init never
    # refuses it after the record exists.
    default_branch = StrictRegexField(GIT_BRANCH_NAME, required=False, allow_blank=True,
                                      max_length=100)  # fmt: skip
    trust_model = serializers.ChoiceField(
        choices=["", "default", "collaborator", "committer", "collaboratorcommitter"],
        required=False,
    )
    object_format_name = serializers.ChoiceField(choices=["", "sha1"], required=False)


class EditRepoOptionSerializer(serializers.Serializer):
    name = StrictCharField(required=False, allow_null=True, max_length=100)
    description = StrictCharField(
        required=False, allow_blank=True, allow_null=True, max_length=2048
    )
    website = StrictCharField(required=False, allow_blank=True, allow_null=True, max_length=1024)
    private = StrictBooleanField(required=False, allow_null=True)
    template = StrictBooleanField(required=False, allow_null=True)
    has_code = StrictBooleanField(required=False, allow_null=True)
    has_issues = StrictBooleanField(required=False, allow_null=True)
    internal_tracker = InternalTrackerSerializer(required=False, allow_null=True)
    external_tracker = ExternalTrackerSerializer(required=False, allow_null=True)
    has_wiki = StrictBooleanField(required=False, allow_null=True)
    external_wiki = ExternalWikiSerializer(required=False, allow_null=True)
    default_branch = StrictCharField(required=False, allow_blank=True, allow_null=True)
    has_pull_requests = StrictBooleanField(required=False, allow_null=True)
    has_projects = StrictBooleanField(required=False, allow_null=True)
    projects_mode = serializers.ChoiceField(
        choices=["repo", "owner", "all"], required=False, allow_null=True
    )
    has_releases = StrictBooleanField(required=False, allow_null=True)
    has_packages = StrictBooleanField(required=False, allow_null=True)
    has_actions = StrictBooleanField(required=False, allow_null=True)
    ignore_whitespace_conflicts = StrictBooleanField(required=False, allow_null=True)
    allow_merge_commits = StrictBooleanField(required=False, allow_null=True)
    allow_rebase = StrictBooleanField(required=False, allow_null=True)
    allow_rebase_explicit = StrictBooleanField(required=False, allow_null=True)
    allow_squash_merge = StrictBooleanField(required=False, allow_null=True)
    allow_fast_forward_only_merge = StrictBooleanField(required=False, allow_null=True)
    allow_manual_merge = StrictBooleanField(required=False, allow_null=True)
    autodetect_manual_merge = StrictBooleanField(required=False, allow_null=True)
    allow_rebase_update = StrictBooleanField(required=False, allow_null=True)
    default_delete_branch_after_merge = StrictBooleanField(required=False, allow_null=True)
    default_merge_style = serializers.ChoiceField(
        choices=["merge", "rebase", "rebase-merge", "squash", "fast-forward-only",
                 "manually-merged"],
        required=False,
        allow_null=True,
    )  # fmt: skip
    default_allow_maintainer_edit = StrictBooleanField(required=False, allow_null=True)
    archived = StrictBooleanField(required=False, allow_null=True)
    mirror_interval = StrictCharField(required=False, allow_blank=True, allow_null=True)
    enable_prune = StrictBooleanField(required=False, allow_null=True)


class CreateForkOptionSerializer(serializers.Serializer):
    organization = StrictCharField(required=False, allow_blank=True, allow_null=True)
    name = StrictCharField(required=False, allow_blank=True, allow_null=True)


class AddCollaboratorOptionSerializer(serializers.Serializer):
    permission = serializers.ChoiceField(
        choices=["read", "write", "admin"], required=False, allow_null=True
    )


class RepoTopicOptionsSerializer(serializers.Serializer):
    topics = serializers.ListField(child=StrictCharField(allow_blank=True))
