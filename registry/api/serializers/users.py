"""Harbor's user records and bodies; search, statistics, configuration and label bodies."""

from rest_framework import serializers

from config.limits import INT64_MAX
from registry.api.serializers.fields import (
    NAME_PATTERN,
    HarborSerializer,
    HarborTimeField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    _out,
    documented_string,
)
from registry.api.serializers.projects import PROJECT
from registry.services.users import EMAIL_PATTERN, PASSWORD_PATTERN


class UserRespSerializer(HarborSerializer):
    always = frozenset({"sysadmin_flag", "admin_role_in_auth"})

    user_id = _out(serializers.IntegerField, source="pk")
    username = _out(serializers.CharField)
    email = _out(serializers.CharField)
    realname = serializers.SerializerMethodField()
    comment = serializers.SerializerMethodField()
    sysadmin_flag = _out(serializers.BooleanField, source="is_superuser")
    admin_role_in_auth = serializers.SerializerMethodField()
    creation_time = HarborTimeField(source="date_joined")
    update_time = HarborTimeField(source="date_joined")

    @staticmethod
    def _profile(user):
        return getattr(user, "harbor_profile", None)

    def get_realname(self, user) -> str:
        profile = self._profile(user)
        return profile.realname if profile else ""

    def get_comment(self, user) -> str:
        profile = self._profile(user)
        return profile.comment if profile else ""

    def get_admin_role_in_auth(self, user) -> bool:
        profile = self._profile(user)
        return bool(profile and profile.admin_role_in_auth)


class UserSearchRespItemSerializer(HarborSerializer):
    user_id = _out(serializers.IntegerField, source="pk")
    username = _out(serializers.CharField)


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


class SearchRepositorySerializer(HarborSerializer):
    project_id = _out(serializers.IntegerField)
    project_name = _out(serializers.CharField, source="project.name")
    project_public = _out(serializers.BooleanField)
    repository_name = _out(serializers.CharField, source="name")
    pull_count = _out(serializers.IntegerField)
    artifact_count = _out(serializers.IntegerField)


class SearchSerializer(serializers.Serializer):
    project = PROJECT.serializer(many=True)
    repository = SearchRepositorySerializer(many=True)


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
