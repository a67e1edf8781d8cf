"""Gitea's request bodies (option objects), validated into plain dicts."""

from rest_framework import serializers

from codehost.api.serializers.fields import (
    GIT_BRANCH_NAME,
    ExternalTrackerSerializer,
    ExternalWikiSerializer,
    InternalTrackerSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictRegexField,
)
from codehost.errors import Invalid

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
