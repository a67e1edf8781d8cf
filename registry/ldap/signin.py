"""Directory users once signed in: their LDAP groups (cached briefly), the admin role a
group grants, and dropping remembered sign-ins when the directory settings change."""

import hashlib
import logging

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX, make_password
from django.core.cache import cache
from django.db.models import Q

from registry import configuration
from registry.ldap.client import DirectoryError, DirectorySettings, current_settings, ldap_mode
from registry.ldap.directory import lookup_user_groups
from registry.ldap.syntax import normalize_dn
from registry.models import UserGroup, UserProfile

logger = logging.getLogger(__name__)

# How long a user's group DNs (and so their group roles and admin flag) are trusted.
GROUP_CACHE_SECONDS = 60


# --- signed-in directory users ------------------------------------------------------------

# Settings that decide who may sign in through the directory.
SIGN_IN_KEYS = frozenset(
    {
        "auth_mode",
        "ldap_url",
        "ldap_base_dn",
        "ldap_filter",
        "ldap_uid",
        "ldap_scope",
        "ldap_search_dn",
    }
)


def forget_directory_sign_ins() -> None:
    """Make every directory user sign in again: a new unusable password marker changes the
    account fingerprint that remembered Basic pairs (config.auth) and sessions depend on."""
    get_user_model().objects.filter(password__startswith=UNUSABLE_PASSWORD_PREFIX).update(
        password=make_password(None)
    )


# --- group roles of signed-in users --------------------------------------------------------


def is_directory_account(user) -> bool:
    """LDAP users are created without a local password; local accounts never go to LDAP."""
    return user.is_authenticated and not user.has_usable_password()


def _groups_cache_key(conf: DirectorySettings, user) -> str:
    # The key changes with the settings that decide group membership.
    scope = "\0".join(
        str(value)
        for value in (
            conf.url,
            conf.base_dn,
            conf.filter,
            conf.uid_attribute,
            conf.groups_base,
            conf.group_filter,
            conf.membership_attribute,
        )
    )
    digest = hashlib.sha256(scope.encode()).hexdigest()[:16]
    return f"registry-ldap-groups:{digest}:{user.pk}"


def remember_groups(conf: DirectorySettings, user, dns: frozenset[str]) -> None:
    """Cache a user's group DNs and keep the profile's admin_role_in_auth in step."""
    cache.set(_groups_cache_key(conf, user), sorted(dns), GROUP_CACHE_SECONDS)
    user._registry_ldap_groups = dns
    admin = bool(conf.group_admin_dn) and normalize_dn(conf.group_admin_dn) in {
        normalize_dn(dn) for dn in dns
    }
    profile, _ = UserProfile.objects.get_or_create(user=user)
    if profile.admin_role_in_auth != admin:
        profile.admin_role_in_auth = admin
        profile.save(update_fields=["admin_role_in_auth"])
    user.harbor_profile = profile


def group_dns_for(user) -> frozenset[str]:
    """The LDAP group DNs of a signed-in directory user, trusted for GROUP_CACHE_SECONDS.

    Empty outside ldap_auth and for local accounts. A directory that cannot be reached
    gives no groups (and is not asked again until the cache entry expires).
    """
    known = getattr(user, "_registry_ldap_groups", None)
    if known is not None:
        return known
    if not is_directory_account(user) or not ldap_mode():
        return frozenset()
    conf = current_settings()
    cached = cache.get(_groups_cache_key(conf, user))
    if cached is not None:
        user._registry_ldap_groups = frozenset(cached)
        return user._registry_ldap_groups
    try:
        dns = lookup_user_groups(conf, user.get_username()) or frozenset()
    except DirectoryError as exc:
        logger.warning("LDAP groups of %s unavailable: %s", user.get_username(), exc.message)
        dns = frozenset()
    remember_groups(conf, user, dns)
    return dns


def group_ids_for(user) -> list[int]:
    """Ids of the registry's LDAP user groups the user belongs to in the directory."""
    dns = group_dns_for(user)
    if not dns:
        return []
    matches = Q()
    for dn in dns:
        matches |= Q(ldap_group_dn__iexact=dn)
    groups = UserGroup.objects.filter(matches, group_type=UserGroup.GroupType.LDAP)
    return list(groups.values_list("pk", flat=True))


def is_directory_admin(user) -> bool:
    """Member of ldap_group_admin_dn: Harbor's admin_role_in_auth."""
    if not is_directory_account(user) or not ldap_mode():
        return False
    admin_dn = configuration.get("ldap_group_admin_dn")
    if not admin_dn:
        return False
    return normalize_dn(admin_dn) in {normalize_dn(dn) for dn in group_dns_for(user)}
