"""Harbor's user records and bodies; search, statistics, configuration and label bodies."""

from rest_framework import serializers

from config.limits import INT64_MAX
from config.records import Field
from registry.api.serializers.fields import (
    ALWAYS,
    NAME_PATTERN,
    HarborSerializer,
    HarborTimeField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    _out,
    documented_string,
    harbor_record,
    harbor_time,
)
from registry.api.serializers.projects import PROJECT
from registry.services.users import EMAIL_PATTERN, PASSWORD_PATTERN

USER = harbor_record(
    "UserResp",
    {
        "user_id": Field(_out(serializers.IntegerField), "pk"),
        "username": Field(_out(serializers.CharField)),
        "email": Field(_out(serializers.CharField)),
        # The profile is an outer join: a user without one has no real name or comment.
        "realname": Field(serializers.CharField(read_only=True), "harbor_profile__realname"),
        "comment": Field(serializers.CharField(read_only=True), "harbor_profile__comment"),
        "sysadmin_flag": Field(_out(serializers.BooleanField), "is_superuser", omit=ALWAYS),
        "admin_role_in_auth": Field(
            serializers.BooleanField(read_only=True),
            "harbor_profile__admin_role_in_auth",
            convert=bool,
            omit=ALWAYS,
        ),
        "creation_time": Field(HarborTimeField(), "date_joined", convert=harbor_time),
        "update_time": Field(HarborTimeField(), "date_joined", convert=harbor_time),
    },
)

USER_SEARCH_ITEM = harbor_record(
    "UserSearchRespItem",
    {
        "user_id": Field(_out(serializers.IntegerField), "pk"),
        "username": Field(_out(serializers.CharField)),
    },
)


class UserCreationReqSerializer(serializers.Serializer):
    username = documented_string(minLength=1, maxLength=255, pattern=NAME_PATTERN)
    email = documented_string(maxLength=254, pattern=EMAIL_PATTERN)
    # Optional: an empty real name is no real name.
    realname = documented_string(required=False, maxLength=255, pattern=r'^[^,"~#%$]*$')
    comment = documented_string(required=False, maxLength=30)
    password = documented_string(
        write_only=True, minLength=8, maxLength=128, pattern=PASSWORD_PATTERN
    )


class UserProfileSerializer(serializers.Serializer):
    email = documented_string(required=False, maxLength=254, pattern=EMAIL_PATTERN)
    realname = documented_string(required=False, maxLength=255, pattern=r'^[^,"~#%$]*$')
    comment = documented_string(required=False, maxLength=30)


class PasswordReqSerializer(serializers.Serializer):
    old_password = StrictCharField(required=False, allow_blank=True)
    new_password = documented_string(minLength=8, maxLength=128, pattern=PASSWORD_PATTERN)


class PermissionSerializer(HarborSerializer):
    action = _out(serializers.CharField)
    resource = _out(serializers.CharField)


class UserSysAdminFlagSerializer(serializers.Serializer):
    sysadmin_flag = StrictBooleanField(required=False)


# --- search, statistics, configurations -----------------------------------------------------


# A search's repository row; written by the database (registry.api.search_json).
SEARCH_REPOSITORY = harbor_record(
    "SearchRepository",
    {
        "project_id": Field(_out(serializers.IntegerField)),
        "project_name": Field(_out(serializers.CharField)),
        "project_public": Field(_out(serializers.BooleanField)),
        "repository_name": Field(_out(serializers.CharField), "name"),
        "pull_count": Field(_out(serializers.IntegerField)),
        "artifact_count": Field(_out(serializers.IntegerField)),
    },
)


class SearchSerializer(serializers.Serializer):
    project = PROJECT.serializer(many=True)
    repository = SEARCH_REPOSITORY.serializer(many=True)


class StatisticSerializer(serializers.Serializer):
    private_project_count = serializers.IntegerField()
    private_repo_count = serializers.IntegerField()
    public_project_count = serializers.IntegerField()
    public_repo_count = serializers.IntegerField()
    total_project_count = serializers.IntegerField()
    total_repo_count = serializers.IntegerField()
    total_storage_consumption = serializers.IntegerField()


def config_items(values: dict, editable: dict) -> dict:
    """{key: {"editable": bool, "value": v}} in key order, as GET /configurations sends."""
    return {
        key: {"editable": editable.get(key, True), "value": values[key]} for key in sorted(values)
    }


class MetadataMapSerializer(serializers.Serializer):
    """A metadata body: a flat map whose values are strings."""

    def to_internal_value(self, data):
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise serializers.ValidationError({"body": ["values must be strings"]})
        return data


class UserGroupReqSerializer(serializers.Serializer):
    id = StrictIntegerField(required=False)
    group_name = StrictCharField(min_length=1, max_length=255)
    group_type = serializers.ChoiceField(choices=[1, 2, 3], required=False)
    ldap_group_dn = StrictCharField(required=False, allow_blank=True, max_length=512)


class UserGroupUpdateSerializer(serializers.Serializer):
    group_name = StrictCharField(min_length=1, max_length=255)


class LabelReqSerializer(serializers.Serializer):
    name = StrictCharField(required=False, min_length=1, max_length=128)
    description = StrictCharField(required=False, allow_blank=True)
    color = StrictCharField(required=False, allow_blank=True, max_length=16)
    scope = serializers.ChoiceField(choices=["g", "p"], required=False)
    project_id = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=INT64_MAX
    )


class LabelCreateSerializer(LabelReqSerializer):
    name = StrictCharField(min_length=1, max_length=128)
    scope = serializers.ChoiceField(choices=["g", "p"])


class LabelIdSerializer(serializers.Serializer):
    id = StrictIntegerField(min_value=1, max_value=INT64_MAX)
