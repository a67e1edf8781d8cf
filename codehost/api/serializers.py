"""Gitea v1 wire shapes. The only module that knows wire field names.

Output serializers build their dicts directly (key order as Gitea emits them; a page of 50
repositories is rendered without per-field overhead); their declared fields describe the
schema. Context: `actor` (the caller), `access` ({repo id: Access}) for repositories.
"""

from datetime import UTC, datetime

from django.conf import settings
from rest_framework import serializers

from codehost.access import Access, Actor
from codehost.errors import Unprocessable
from codehost.mirrors import format_go_duration, mirror_of
from codehost.models import AccessMode, OpType, Owner, Repository, Team, UnitType

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


def mode_name(mode: int) -> str:
    return AccessMode(mode).label


# --- users and organizations -----------------------------------------------------------


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    login = serializers.CharField()
    login_name = serializers.CharField()
    source_id = serializers.IntegerField()
    full_name = serializers.CharField()
    email = serializers.CharField()
    avatar_url = serializers.CharField()
    html_url = serializers.CharField()
    language = serializers.CharField()
    is_admin = serializers.BooleanField()
    last_login = serializers.DateTimeField()
    created = serializers.DateTimeField()
    restricted = serializers.BooleanField()
    active = serializers.BooleanField()
    prohibit_login = serializers.BooleanField()
    location = serializers.CharField()
    website = serializers.CharField()
    description = serializers.CharField()
    visibility = serializers.CharField()
    followers_count = serializers.IntegerField()
    following_count = serializers.IntegerField()
    starred_repos_count = serializers.IntegerField()
    username = serializers.CharField()

    def to_representation(self, owner: Owner) -> dict:
        actor: Actor = self.context.get("actor") or Actor()
        account = owner.user if owner.user_id else None
        private_view = actor.is_admin or (actor.owner is not None and actor.owner.pk == owner.pk)
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
    id = serializers.IntegerField()
    name = serializers.CharField()
    full_name = serializers.CharField()
    email = serializers.CharField()
    avatar_url = serializers.CharField()
    description = serializers.CharField()
    website = serializers.CharField()
    location = serializers.CharField()
    visibility = serializers.CharField()
    repo_admin_change_team_access = serializers.BooleanField()
    username = serializers.CharField()

    def to_representation(self, org: Owner) -> dict:
        actor: Actor = self.context.get("actor") or Actor()
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
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    organization = OrganizationSerializer(allow_null=True)
    includes_all_repositories = serializers.BooleanField()
    permission = serializers.ChoiceField(choices=[m.label for m in AccessMode])
    units = serializers.ListField(child=serializers.CharField(), allow_null=True)
    units_map = serializers.DictField(child=serializers.CharField())
    can_create_org_repo = serializers.BooleanField()

    def to_representation(self, team: Team) -> dict:
        with_org = self.context.get("with_org", False)
        if team.access_mode >= AccessMode.ADMIN:
            units_map = {unit.label: mode_name(team.access_mode) for unit in UnitType}
        else:
            units_map = {key: mode_name(mode) for key, mode in team.units.items()}
        order = {unit.label: unit.value for unit in UnitType}
        units = sorted(units_map, key=lambda key: order.get(key, 99))
        return {
            "id": team.pk,
            "name": team.name,
            "description": team.description,
            "organization": (
                OrganizationSerializer(team.org, context=self.context).data if with_org else None
            ),
            "includes_all_repositories": team.includes_all_repositories,
            "permission": mode_name(team.access_mode),
            "units": units or None,
            "units_map": dict(sorted(units_map.items())),
            "can_create_org_repo": team.can_create_org_repo,
        }


class TeamSearchResultsSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    data = TeamSerializer(many=True)


# --- repositories -----------------------------------------------------------------------


class PermissionSerializer(serializers.Serializer):
    admin = serializers.BooleanField()
    push = serializers.BooleanField()
    pull = serializers.BooleanField()


class InternalTrackerSerializer(serializers.Serializer):
    enable_time_tracker = serializers.BooleanField(required=False)
    allow_only_contributors_to_track_time = serializers.BooleanField(required=False)
    enable_issue_dependencies = serializers.BooleanField(required=False)


class ExternalTrackerSerializer(serializers.Serializer):
    external_tracker_url = serializers.CharField(required=False, allow_blank=True)
    external_tracker_format = serializers.CharField(required=False, allow_blank=True)
    external_tracker_style = serializers.CharField(required=False, allow_blank=True)
    external_tracker_regexp_pattern = serializers.CharField(required=False, allow_blank=True)


class ExternalWikiSerializer(serializers.Serializer):
    external_wiki_url = serializers.CharField(required=False, allow_blank=True)


PULL_KEYS = [
    "ignore_whitespace_conflicts",
    "allow_merge_commits",
    "allow_rebase",
    "allow_rebase_explicit",
    "allow_squash_merge",
    "allow_fast_forward_only_merge",
    "allow_rebase_update",
    "allow_manual_merge",
    "autodetect_manual_merge",
    "default_delete_branch_after_merge",
    "default_merge_style",
    "default_allow_maintainer_edit",
]


class ParentRepositorySerializer(serializers.Serializer):
    """Schema stand-in for the nested `parent` (same shape, one level deep)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    full_name = serializers.CharField()


class RepositorySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    owner = UserSerializer()
    name = serializers.CharField()
    full_name = serializers.CharField()
    description = serializers.CharField()
    empty = serializers.BooleanField()
    private = serializers.BooleanField()
    fork = serializers.BooleanField()
    template = serializers.BooleanField()
    parent = ParentRepositorySerializer(required=False)
    mirror = serializers.BooleanField()
    size = serializers.IntegerField()
    language = serializers.CharField()
    languages_url = serializers.CharField()
    html_url = serializers.CharField()
    url = serializers.CharField()
    link = serializers.CharField()
    ssh_url = serializers.CharField()
    clone_url = serializers.CharField()
    original_url = serializers.CharField()
    website = serializers.CharField()
    stars_count = serializers.IntegerField()
    forks_count = serializers.IntegerField()
    watchers_count = serializers.IntegerField()
    branch_count = serializers.IntegerField()
    open_issues_count = serializers.IntegerField()
    open_pr_counter = serializers.IntegerField()
    release_counter = serializers.IntegerField()
    default_branch = serializers.CharField()
    archived = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    archived_at = serializers.DateTimeField()
    permissions = PermissionSerializer(required=False)
    has_code = serializers.BooleanField()
    has_issues = serializers.BooleanField()
    internal_tracker = InternalTrackerSerializer(required=False)
    external_tracker = ExternalTrackerSerializer(required=False)
    has_wiki = serializers.BooleanField()
    external_wiki = ExternalWikiSerializer(required=False)
    has_pull_requests = serializers.BooleanField()
    has_projects = serializers.BooleanField()
    projects_mode = serializers.CharField()
    has_releases = serializers.BooleanField()
    has_packages = serializers.BooleanField()
    has_actions = serializers.BooleanField()
    ignore_whitespace_conflicts = serializers.BooleanField()
    allow_merge_commits = serializers.BooleanField()
    allow_rebase = serializers.BooleanField()
    allow_rebase_explicit = serializers.BooleanField()
    allow_squash_merge = serializers.BooleanField()
    allow_fast_forward_only_merge = serializers.BooleanField()
    allow_rebase_update = serializers.BooleanField()
    allow_manual_merge = serializers.BooleanField()
    autodetect_manual_merge = serializers.BooleanField()
    default_delete_branch_after_merge = serializers.BooleanField()
    default_merge_style = serializers.CharField()
    default_allow_maintainer_edit = serializers.BooleanField()
    avatar_url = serializers.CharField()
    internal = serializers.BooleanField()
    mirror_interval = serializers.CharField()
    object_format_name = serializers.CharField()
    mirror_updated = serializers.DateTimeField()
    topics = serializers.ListField(child=serializers.CharField())
    licenses = serializers.ListField(child=serializers.CharField())

    def to_representation(self, repo: Repository) -> dict:
        return render_repository(repo, self.context, with_parent=True)


def render_repository(repo: Repository, context: dict, with_parent: bool) -> dict:
    access: Access = (context.get("access") or {}).get(repo.pk) or Access()
    mirror = mirror_of(repo)
    owner = repo.owner
    units = repo.units
    full_name = f"{owner.name}/{repo.name}"
    api_url = f"{base_url()}api/v1/repos/{full_name}"
    host = settings_domain()
    data = {
        "id": repo.pk,
        "owner": UserSerializer(owner, context=context).data,
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
            "html_url": f"{base_url()}{full_name}",
            "url": api_url,
            "link": "",
            "ssh_url": f"git@{host}:{full_name}.git",
            "clone_url": f"{base_url()}{full_name}.git",
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
    issues = units.get(UnitType.ISSUES.label)
    ext_issues = units.get(UnitType.EXT_ISSUES.label)
    wiki = UnitType.WIKI.label in units
    ext_wiki = units.get(UnitType.EXT_WIKI.label)
    pulls = units.get(UnitType.PULLS.label)
    projects = units.get(UnitType.PROJECTS.label)
    data["has_code"] = UnitType.CODE.label in units
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
    data["has_releases"] = UnitType.RELEASES.label in units
    data["has_packages"] = UnitType.PACKAGES.label in units
    data["has_actions"] = UnitType.ACTIONS.label in units
    for key in PULL_KEYS:
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
    ok = serializers.BooleanField()
    data = RepositorySerializer(many=True)


class ActivitySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    user_id = serializers.IntegerField()
    op_type = serializers.ChoiceField(choices=[op.label for op in OpType])
    act_user_id = serializers.IntegerField()
    act_user = UserSerializer()
    repo_id = serializers.IntegerField()
    repo = RepositorySerializer(allow_null=True)
    comment_id = serializers.IntegerField()
    comment = serializers.JSONField(allow_null=True)
    ref_name = serializers.CharField()
    is_private = serializers.BooleanField()
    content = serializers.CharField()
    created = serializers.DateTimeField()

    def to_representation(self, activity) -> dict:
        return {
            "id": activity.pk,
            "user_id": activity.user_id,
            "op_type": OpType(activity.op_type).label,
            "act_user_id": activity.act_user_id,
            "act_user": UserSerializer(activity.act_user, context=self.context).data,
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
    id = serializers.IntegerField()
    name = serializers.CharField()
    sha1 = serializers.CharField()
    token_last_eight = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
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
    version = serializers.CharField()


class APISettingsSerializer(serializers.Serializer):
    max_response_items = serializers.IntegerField()
    default_paging_num = serializers.IntegerField()
    default_git_trees_per_page = serializers.IntegerField()
    default_max_blob_size = serializers.IntegerField()
    default_max_response_size = serializers.IntegerField()


class TopicNameSerializer(serializers.Serializer):
    topics = serializers.ListField(child=serializers.CharField())


class RepoCollaboratorPermissionSerializer(serializers.Serializer):
    permission = serializers.CharField()
    role_name = serializers.CharField()
    user = UserSerializer()


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
            raise Unprocessable("[]: json: cannot unmarshal into the option object") from exc
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        field, errors = next(iter(serializer.errors.items()))
        code = getattr(errors[0], "code", "invalid") if isinstance(errors, list) else "invalid"
        raise Unprocessable(f"[{go_name(field)}]: {RULES.get(code, 'Invalid')}")
    return serializer.validated_data


class CreateUserOptionSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=40)
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(required=False, allow_blank=True, max_length=255)
    full_name = serializers.CharField(required=False, allow_blank=True, max_length=100)
    login_name = serializers.CharField(required=False, allow_blank=True)
    source_id = serializers.IntegerField(required=False)
    must_change_password = serializers.BooleanField(required=False, allow_null=True)
    send_notify = serializers.BooleanField(required=False)
    restricted = serializers.BooleanField(required=False, allow_null=True)
    visibility = serializers.ChoiceField(
        choices=["", "public", "limited", "private"], required=False
    )


class CreateAccessTokenOptionSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=255)
    scopes = serializers.ListField(child=serializers.CharField(), required=False)


class CreateOrgOptionSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=40)
    full_name = serializers.CharField(required=False, allow_blank=True, max_length=100)
    email = serializers.CharField(required=False, allow_blank=True, max_length=255)
    description = serializers.CharField(required=False, allow_blank=True, max_length=255)
    website = serializers.CharField(required=False, allow_blank=True, max_length=255)
    location = serializers.CharField(required=False, allow_blank=True, max_length=50)
    visibility = serializers.ChoiceField(
        choices=["", "public", "limited", "private"], required=False
    )
    repo_admin_change_team_access = serializers.BooleanField(required=False)


UNIT_NAMES = [unit.label for unit in UnitType]


class CreateTeamOptionSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=255)
    description = serializers.CharField(required=False, allow_blank=True, max_length=255)
    includes_all_repositories = serializers.BooleanField(required=False)
    permission = serializers.ChoiceField(
        choices=["read", "write", "admin"], required=False, allow_blank=True
    )
    units = serializers.ListField(child=serializers.CharField(), required=False, allow_null=True)
    units_map = serializers.DictField(
        child=serializers.CharField(allow_blank=True), required=False, allow_null=True
    )
    can_create_org_repo = serializers.BooleanField(required=False)


class EditTeamOptionSerializer(CreateTeamOptionSerializer):
    name = serializers.CharField(max_length=255, required=False, allow_blank=True)
    description = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=255
    )
    includes_all_repositories = serializers.BooleanField(required=False, allow_null=True)
    can_create_org_repo = serializers.BooleanField(required=False, allow_null=True)


class CreateRepoOptionSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2048)
    private = serializers.BooleanField(required=False)
    issue_labels = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=255
    )
    auto_init = serializers.BooleanField(required=False)
    template = serializers.BooleanField(required=False)
    gitignores = serializers.CharField(required=False, allow_blank=True, allow_null=True)
    license = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=100
    )
    readme = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=255
    )
    default_branch = serializers.RegexField(
        r"^[^\s~^:?*\[\\]+$", required=False, allow_blank=True, max_length=100
    )
    trust_model = serializers.ChoiceField(
        choices=["", "default", "collaborator", "committer", "collaboratorcommitter"],
        required=False,
    )
    object_format_name = serializers.ChoiceField(choices=["", "sha1"], required=False)


class EditRepoOptionSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, allow_null=True, max_length=100)
    description = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=2048
    )
    website = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=1024
    )
    private = serializers.BooleanField(required=False, allow_null=True)
    template = serializers.BooleanField(required=False, allow_null=True)
    has_code = serializers.BooleanField(required=False, allow_null=True)
    has_issues = serializers.BooleanField(required=False, allow_null=True)
    internal_tracker = InternalTrackerSerializer(required=False, allow_null=True)
    external_tracker = ExternalTrackerSerializer(required=False, allow_null=True)
    has_wiki = serializers.BooleanField(required=False, allow_null=True)
    external_wiki = ExternalWikiSerializer(required=False, allow_null=True)
    default_branch = serializers.CharField(required=False, allow_blank=True, allow_null=True)
    has_pull_requests = serializers.BooleanField(required=False, allow_null=True)
    has_projects = serializers.BooleanField(required=False, allow_null=True)
    projects_mode = serializers.ChoiceField(
        choices=["repo", "owner", "all"], required=False, allow_null=True
    )
    has_releases = serializers.BooleanField(required=False, allow_null=True)
    has_packages = serializers.BooleanField(required=False, allow_null=True)
    has_actions = serializers.BooleanField(required=False, allow_null=True)
    ignore_whitespace_conflicts = serializers.BooleanField(required=False, allow_null=True)
    allow_merge_commits = serializers.BooleanField(required=False, allow_null=True)
    allow_rebase = serializers.BooleanField(required=False, allow_null=True)
    allow_rebase_explicit = serializers.BooleanField(required=False, allow_null=True)
    allow_squash_merge = serializers.BooleanField(required=False, allow_null=True)
    allow_fast_forward_only_merge = serializers.BooleanField(required=False, allow_null=True)
    allow_manual_merge = serializers.BooleanField(required=False, allow_null=True)
    autodetect_manual_merge = serializers.BooleanField(required=False, allow_null=True)
    allow_rebase_update = serializers.BooleanField(required=False, allow_null=True)
    default_delete_branch_after_merge = serializers.BooleanField(required=False, allow_null=True)
    default_merge_style = serializers.ChoiceField(
        choices=["merge", "rebase", "rebase-merge", "squash", "fast-forward-only",
                 "manually-merged"],
        required=False,
        allow_null=True,
    )  # fmt: skip
    default_allow_maintainer_edit = serializers.BooleanField(required=False, allow_null=True)
    archived = serializers.BooleanField(required=False, allow_null=True)
    mirror_interval = serializers.CharField(required=False, allow_blank=True, allow_null=True)
    enable_prune = serializers.BooleanField(required=False, allow_null=True)


class CreateForkOptionSerializer(serializers.Serializer):
    organization = serializers.CharField(required=False, allow_blank=True, allow_null=True)
    name = serializers.CharField(required=False, allow_blank=True, allow_null=True)


class AddCollaboratorOptionSerializer(serializers.Serializer):
    permission = serializers.ChoiceField(
        choices=["read", "write", "admin"], required=False, allow_null=True
    )


class RepoTopicOptionsSerializer(serializers.Serializer):
    topics = serializers.ListField(child=serializers.CharField(allow_blank=True))
