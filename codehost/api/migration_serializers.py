"""Wire format of POST /repos/migrate (Gitea's MigrateRepoOptions)."""

from rest_framework import serializers

from codehost.api.serializers.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictRegexField,
)

SERVICES = [
    "git",
    "github",
    "gitea",
    "gitlab",
    "gogs",
    "onedev",
    "gitbucket",
    "codebase",
    "codecommit",
]
# Gitea reports binding errors by the Go field name: "[RepoName]: Required".
GO_FIELD_NAMES = {
    "clone_addr": "CloneAddr",
    "repo_name": "RepoName",
    "repo_owner": "RepoOwner",
    "uid": "RepoOwnerID",
    "service": "Service",
    "description": "Description",
    "mirror_interval": "MirrorInterval",
    # A body that is not an object at all.
    "non_field_errors": "",
}


class MigrateRepoOptionsSerializer(serializers.Serializer):
    """Optional members take null as Go's decoder does: the zero value (py-gitea sends
    every option, unset ones as null)."""

    clone_addr = StrictCharField(trim_whitespace=False)
    repo_name = StrictRegexField(r"^[A-Za-z0-9_.-]+$", max_length=100)
    repo_owner = StrictCharField(required=False, allow_null=True, allow_blank=True, default="")
    uid = StrictIntegerField(required=False, allow_null=True, default=None)
    service = serializers.ChoiceField(
        SERVICES, required=False, allow_null=True, allow_blank=True, default=""
    )
    auth_username = StrictCharField(required=False, allow_null=True, allow_blank=True, default="")
    auth_password = StrictCharField(
        required=False, allow_null=True, allow_blank=True, default="", trim_whitespace=False
    )
    auth_token = StrictCharField(
        required=False, allow_null=True, allow_blank=True, default="", trim_whitespace=False
    )
    aws_access_key_id = StrictCharField(
        required=False, allow_null=True, allow_blank=True, default=""
    )
    aws_secret_access_key = StrictCharField(
        required=False, allow_null=True, allow_blank=True, default=""
    )
    mirror = StrictBooleanField(required=False, allow_null=True, default=False)
    mirror_interval = StrictCharField(required=False, allow_null=True, allow_blank=True, default="")
    private = StrictBooleanField(required=False, allow_null=True, default=False)
    description = StrictCharField(
        required=False, allow_null=True, allow_blank=True, default="", max_length=2048
    )
    wiki = StrictBooleanField(required=False, allow_null=True, default=False)
    issues = StrictBooleanField(required=False, allow_null=True, default=False)
    milestones = StrictBooleanField(required=False, allow_null=True, default=False)
    labels = StrictBooleanField(required=False, allow_null=True, default=False)
    pull_requests = StrictBooleanField(required=False, allow_null=True, default=False)
    releases = StrictBooleanField(required=False, allow_null=True, default=False)
    lfs = StrictBooleanField(required=False, allow_null=True, default=False)
    lfs_endpoint = StrictCharField(required=False, allow_null=True, allow_blank=True, default="")


def binding_error(errors: dict) -> str:
    """The first field error in Gitea's "[Field]: Rule" form."""
    field, messages = next(iter(errors.items()))
    code = getattr(messages[0], "code", "invalid")
    rule = {
        "required": "Required",
        "blank": "Required",
        "null": "Required",
        "max_length": "MaxSize",
        "invalid": "AlphaDashDot" if field == "repo_name" else "Invalid",
        "invalid_choice": "In",
    }.get(code, str(messages[0]))
    return f"[{GO_FIELD_NAMES.get(field, field)}]: {rule}"
