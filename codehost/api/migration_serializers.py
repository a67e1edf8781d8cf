"""Wire format of POST /repos/migrate (Gitea's MigrateRepoOptions)."""

from rest_framework import serializers

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
}


class MigrateRepoOptionsSerializer(serializers.Serializer):
    clone_addr = serializers.CharField(trim_whitespace=False)
    repo_name = serializers.RegexField(r"^[A-Za-z0-9_.-]+$", max_length=100)
    repo_owner = serializers.CharField(required=False, allow_blank=True, default="")
    uid = serializers.IntegerField(required=False, allow_null=True, default=None)
    service = serializers.ChoiceField(SERVICES, required=False, allow_blank=True, default="")
    auth_username = serializers.CharField(required=False, allow_blank=True, default="")
    auth_password = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )
    auth_token = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )
    aws_access_key_id = serializers.CharField(required=False, allow_blank=True, default="")
    aws_secret_access_key = serializers.CharField(required=False, allow_blank=True, default="")
    mirror = serializers.BooleanField(required=False, default=False)
    mirror_interval = serializers.CharField(required=False, allow_blank=True, default="")
    private = serializers.BooleanField(required=False, default=False)
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=2048
    )
    wiki = serializers.BooleanField(required=False, default=False)
    issues = serializers.BooleanField(required=False, default=False)
    milestones = serializers.BooleanField(required=False, default=False)
    labels = serializers.BooleanField(required=False, default=False)
    pull_requests = serializers.BooleanField(required=False, default=False)
    releases = serializers.BooleanField(required=False, default=False)
    lfs = serializers.BooleanField(required=False, default=False)
    lfs_endpoint = serializers.CharField(required=False, allow_blank=True, default="")


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
