"""LDAP sign-in (Basic and session) when the registry's auth_mode is ldap_auth.

A django-auth-ldap backend whose settings are built from the stored system configuration
on every sign-in, so a PUT /configurations applies at once in every process. Connections
come from registry.ldap.client (timeouts, TLS, StartTLS). Local accounts (those with a usable
password, the admin among them) are never looked up in the directory.
"""

import logging

import ldap
from django.contrib.auth import get_user_model
from django_auth_ldap.backend import LDAPBackend
from django_auth_ldap.config import LDAPSearch, LDAPSettings

from registry.ldap import client, directory, signin, syntax
from registry.models import UserProfile

logger = logging.getLogger(__name__)


class _DirectoryConnector:
    """Stands in for the python-ldap module inside django-auth-ldap: it only opens
    connections, and they come configured from registry.ldap.client."""

    def __init__(self, conf: client.DirectorySettings):
        self.conf = conf

    def initialize(self, uri, bytes_mode=False):
        return client.open_connection(self.conf)


def backend_settings(conf: client.DirectorySettings) -> LDAPSettings:
    # django-auth-ldap fills "%(user)s" with the escaped username; a literal % must double.
    user_filter = syntax.and_filters(
        syntax.normalize_filter(conf.filter).replace("%", "%%"),
        f"({conf.uid_attribute}=%(user)s)",
    )
    # A prefix no Django setting uses: every value comes from the defaults given here.
    return LDAPSettings(
        prefix="REGISTRY_LDAP_FROM_CONFIGURATION_",
        defaults={
            "SERVER_URI": conf.url,
            "BIND_DN": conf.search_dn,
            "BIND_PASSWORD": conf.search_password,
            "USER_SEARCH": LDAPSearch(
                conf.base_dn,
                conf.scope,
                user_filter,
                attrlist=["*", conf.membership_attribute],
            ),
            "USER_ATTR_MAP": {"email": "mail"},
            "ALWAYS_UPDATE_USER": True,
        },
    )


class RegistryLDAPBackend(LDAPBackend):
    def __init__(self):
        self.directory_settings = client.current_settings()

    @property
    def settings(self):
        if self._settings is None:
            self._settings = backend_settings(self.directory_settings)
        return self._settings

    @property
    def ldap(self):
        return _DirectoryConnector(self.directory_settings)

    def authenticate(self, request, username=None, password=None, **kwargs):
        if not username or not password or not client.ldap_mode():
            return None
        conf = self.directory_settings
        if not conf.url or not syntax.is_attribute_name(conf.uid_attribute):
            return None
        local = get_user_model().objects.filter(username__iexact=username).first()
        if local is not None and local.has_usable_password():
            return None
        try:
            return super().authenticate(request, username=username, password=password)
        except client.DirectoryError as exc:
            logger.warning("LDAP sign-in of %s failed: %s", username, exc.message)
            return None

    def get_or_build_user(self, username, ldap_user):
        """Found case-insensitively; created with the directory's spelling of the uid."""
        model = self.get_user_model()
        uid = client.first_value(ldap_user.attrs or {}, self.directory_settings.uid_attribute)
        user = model.objects.filter(username__iexact=uid or username).first()
        if user is not None:
            return user, False
        return model(username=uid or username), True

    def authenticate_ldap_user(self, ldap_user, password):
        user = super().authenticate_ldap_user(ldap_user, password)
        if user is not None:
            self._record_directory_facts(user, ldap_user)
        return user

    def _record_directory_facts(self, user, ldap_user) -> None:
        """Real name, group DNs and the admin flag, as read at this sign-in."""
        conf = self.directory_settings
        entry = directory.user_from_entry(conf, ldap_user.dn, ldap_user.attrs or {})
        profile, _ = UserProfile.objects.get_or_create(user=user)
        if entry.realname and profile.realname != entry.realname:
            profile.realname = entry.realname
            profile.save(update_fields=["realname"])
        try:
            connection = ldap_user.connection if conf.group_filter else None
            groups = directory.user_group_dns(conf, entry, connection)
        except ldap.LDAPError as exc:
            logger.warning("LDAP groups of %s unavailable: %s", user, client.translate(exc).message)
            groups = frozenset()
        signin.remember_groups(conf, user, groups)
