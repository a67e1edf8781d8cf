"""Wire records of the directory endpoints (harbor-v2.0-swagger.yaml: LdapConf,
LdapPingResult, LdapUser, LdapImportUsers, LdapFailedImportUser, UserGroup)."""

from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers

from registry.api.serializers.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from registry.api.serializers.projects import USER_GROUP


class UidField(StrictCharField):
    """Any JSON string of characters (NUL included): a uid the directory cannot hold is
    reported among the failures."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators = [
            validator
            for validator in self.validators
            if not isinstance(validator, ProhibitNullCharactersValidator)
        ]


class LdapConfSerializer(serializers.Serializer):
    """Every field optional: what the body leaves out comes from the stored configuration."""

    ldap_url = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)
    ldap_search_dn = StrictCharField(required=False, allow_blank=True)
    ldap_search_password = StrictCharField(
        required=False, allow_blank=True, write_only=True, trim_whitespace=False
    )
    ldap_base_dn = StrictCharField(required=False, allow_blank=True)
    ldap_filter = StrictCharField(required=False, allow_blank=True)
    ldap_uid = StrictCharField(required=False, allow_blank=True)
    ldap_scope = StrictIntegerField(required=False)
    # Accepted and ignored, as Harbor does: the stored ldap_timeout bounds every ping.
    ldap_connection_timeout = StrictIntegerField(required=False)
    ldap_verify_cert = StrictBooleanField(required=False)

    # LdapConf key -> configuration key, for the fields a ping uses.
    CONFIGURATION_KEYS = {
        "ldap_url": "ldap_url",
        "ldap_search_dn": "ldap_search_dn",
        "ldap_base_dn": "ldap_base_dn",
        "ldap_filter": "ldap_filter",
        "ldap_uid": "ldap_uid",
        "ldap_scope": "ldap_scope",
        "ldap_verify_cert": "ldap_verify_cert",
    }


class LdapPingResultSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField(required=False)


class LdapUserSerializer(serializers.Serializer):
    username = serializers.CharField()
    realname = serializers.CharField(allow_blank=True)
    email = serializers.CharField(allow_blank=True)


class LdapImportUsersSerializer(serializers.Serializer):
    ldap_uid_list = serializers.ListField(child=UidField(allow_blank=True), required=False)


class LdapFailedImportUserSerializer(serializers.Serializer):
    uid = serializers.CharField(allow_blank=True)
    error = serializers.CharField()


def group_search_data(groups) -> list:
    """Harbor's group search answer: UserGroup records holding only the name and the DN,
    no id or group_type ."""
    return [
        USER_GROUP.render(
            {"id": 0, "group_name": group.name, "group_type": 0, "ldap_group_dn": group.dn}
        )
        for group in groups
    ]
