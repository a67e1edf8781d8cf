"""System configuration: Harbor's keys with their types and defaults, validated writes, and
a cached read shared by every process.

Values live in ConfigEntry rows (only keys that were set). Reads go through the Django
cache under a versioned key: a write replaces the version after its transaction commits,
so every web and worker process sees the change on its next read, and a reader that
loaded stale rows can only fill the cache slot of an old version. A version is a random
token, never a counter: the file cache culls entries when full (and Redis may evict), and
a counter restarted after losing its key would make older slots current again.
"""

import uuid
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction

from registry.ldap import syntax
from registry.models import ConfigEntry

VERSION_KEY = "registry-config-version"
VALUES_KEY = "registry-config:{version}"
CACHE_SECONDS = 3600

AUTH_MODES = ("db_auth", "ldap_auth", "uaa_auth", "http_auth", "oidc_auth")
LDAP_SCOPES = (0, 1, 2)
# Harbor's limit on storage_per_project: 1024 TB in bytes.
MAX_STORAGE_BYTES = 1024**5
MAX_DURATION = 9_999_999_999
# A directory slower than this is down: requests wait for it at most this long.
MAX_LDAP_TIMEOUT = 300


class ConfigurationError(ValueError):
    """A value that fails validation; the message is Harbor's 400 text."""


@dataclass(frozen=True)
class Item:
    type: type
    default: object
    # Passwords: accepted by PUT, never returned by GET /configurations.
    secret: bool = False


def _str(default=""):
    return Item(str, default)


def _bool(default=False):
    return Item(bool, default)


def _int(default=0):
    return Item(int, default)


ITEMS: dict[str, Item] = {
    "auth_mode": _str("db_auth"),
    "primary_auth_mode": _bool(),
    "ldap_url": _str(),
    "ldap_base_dn": _str(),
    "ldap_search_dn": _str(),
    "ldap_search_password": Item(str, "", secret=True),
    "ldap_filter": _str(),
    "ldap_uid": _str("cn"),
    "ldap_scope": _int(2),
    "ldap_timeout": _int(5),
    "ldap_verify_cert": _bool(True),
    "ldap_group_base_dn": _str(),
    "ldap_group_search_filter": _str(),
    "ldap_group_attribute_name": _str(),
    "ldap_group_admin_dn": _str(),
    "ldap_group_search_scope": _int(2),
    "ldap_group_membership_attribute": _str("memberof"),
    "ldap_group_attach_parallel": _bool(),
    "project_creation_restriction": _str("everyone"),
    "read_only": _bool(),
    "self_registration": _bool(),
    "token_expiration": _int(30),
    "robot_token_duration": _int(30),
    "robot_name_prefix": _str("robot$"),
    "notification_enable": _bool(True),
    "quota_per_project_enable": _bool(True),
    "storage_per_project": _int(-1),
    "session_timeout": _int(60),
    "banner_message": _str(),
    "audit_log_forward_endpoint": _str(),
    "disabled_audit_log_event_types": _str(),
    "skip_audit_log_database": _bool(),
    "scanner_skip_update_pulltime": _bool(),
    "pull_count_update_disable": _bool(),
    "uaa_client_id": _str(),
    "uaa_client_secret": _str(),
    "uaa_endpoint": _str(),
    "uaa_verify_cert": _bool(),
    "http_authproxy_endpoint": _str(),
    "http_authproxy_tokenreview_endpoint": _str(),
    "http_authproxy_admin_groups": _str(),
    "http_authproxy_admin_usernames": _str(),
    "http_authproxy_server_certificate": _str(),
    "http_authproxy_verify_cert": _bool(True),
    "http_authproxy_skip_search": _bool(),
    "oidc_name": _str(),
    "oidc_endpoint": _str(),
    "oidc_client_id": _str(),
    "oidc_client_secret": Item(str, "", secret=True),
    "oidc_groups_claim": _str(),
    "oidc_admin_group": _str(),
    "oidc_group_filter": _str(),
    "oidc_scope": _str(),
    "oidc_user_claim": _str(),
    "oidc_verify_cert": _bool(True),
    "oidc_auto_onboard": _bool(),
    "oidc_logout": _bool(),
    "oidc_extra_redirect_parms": _str("{}"),
}

# Keys that may not be set to an empty string (Harbor: "cannot be empty").
NON_EMPTY = ("ldap_url", "ldap_base_dn", "ldap_uid", "robot_name_prefix")


def _check_choice(key, value, allowed):
    if value not in allowed:
        raise ConfigurationError(f"invalid value for {key}: {value!r}, allowed: {list(allowed)}")


def _check_positive_duration(key, value):
    if not 0 < value <= MAX_DURATION:
        raise ConfigurationError(f"{key} should be greater than 0 and at most {MAX_DURATION}")


def _check_storage(key, value):
    if value != -1 and not 0 < value <= MAX_STORAGE_BYTES:
        raise ConfigurationError(
            f"{key} should be -1 or between 1 and {MAX_STORAGE_BYTES}, but got: {value}"
        )


def _check_ldap_url(key, value):
    if value:
        try:
            syntax.parse_url(value)
        except ValueError as exc:
            raise ConfigurationError(f"{key}: {exc}") from None


def _check_dn(key, value):
    if value and not syntax.is_dn(value):
        raise ConfigurationError(f"invalid DN syntax for {key}: {value}")


def _check_attribute(key, value):
    if value and not syntax.is_attribute_name(value):
        raise ConfigurationError(f"invalid attribute name for {key}: {value}")


def _check_filter(key, value):
    if value and not syntax.is_filter(value):
        raise ConfigurationError(f"invalid filter syntax for {key}: {value}")


def _check_ldap_timeout(key, value):
    if not 0 < value <= MAX_LDAP_TIMEOUT:
        raise ConfigurationError(f"{key} should be between 1 and {MAX_LDAP_TIMEOUT} seconds")


def _check_ldap_groups(typed: dict, current: dict) -> None:
    """Harbor: with a group search filter, the group name and membership attributes must
    be set."""
    merged = {**current, **typed}
    if merged["ldap_group_search_filter"] and not (
        merged["ldap_group_attribute_name"] and merged["ldap_group_membership_attribute"]
    ):
        raise ConfigurationError(
            "ldap_group_attribute_name and ldap_group_membership_attribute are required "
            "when ldap_group_search_filter is set"
        )


# Per-key rules beyond the type; each takes (key, typed value) and raises ConfigurationError.
VALIDATORS = {
    "auth_mode": lambda key, value: _check_choice(key, value, AUTH_MODES),
    "ldap_scope": lambda key, value: _check_choice(key, value, LDAP_SCOPES),
    "ldap_group_search_scope": lambda key, value: _check_choice(key, value, LDAP_SCOPES),
    "project_creation_restriction": lambda key, value: _check_choice(
        key, value, ("adminonly", "everyone")
    ),
    "storage_per_project": _check_storage,
    "token_expiration": _check_positive_duration,
    "robot_token_duration": _check_positive_duration,
    "session_timeout": _check_positive_duration,
    "ldap_url": _check_ldap_url,
    "ldap_timeout": _check_ldap_timeout,
    "ldap_base_dn": _check_dn,
    "ldap_search_dn": _check_dn,
    "ldap_group_base_dn": _check_dn,
    "ldap_group_admin_dn": _check_dn,
    "ldap_uid": _check_attribute,
    "ldap_group_attribute_name": _check_attribute,
    "ldap_group_membership_attribute": _check_attribute,
    "ldap_filter": _check_filter,
    "ldap_group_search_filter": _check_filter,
}


def coerce(key: str, value):
    """The value of `key` in its declared type, or ConfigurationError."""
    item = ITEMS[key]
    if item.type is bool:
        if isinstance(value, bool):
            return value
    elif item.type is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif isinstance(value, str):
        return value
    raise ConfigurationError(
        f"the value of {key} should be of type {item.type.__name__}, but got: {value!r}"
    )


def _load() -> dict:
    stored = dict(ConfigEntry.objects.filter(key__in=ITEMS).values_list("key", "value"))
    return {key: stored.get(key, item.default) for key, item in ITEMS.items()}


def values() -> dict:
    """Every configuration value (secrets included), typed, from the cache when fresh."""
    version = cache.get_or_set(VERSION_KEY, _new_version, None)
    key = VALUES_KEY.format(version=version)
    current = cache.get(key)
    if current is None:
        current = _load()
        cache.set(key, current, CACHE_SECONDS)
    return current


def get(key: str):
    return values()[key]


def public_values() -> dict:
    """The values GET /configurations may show: every key but the passwords."""
    return {key: value for key, value in values().items() if not ITEMS[key].secret}


def _new_version() -> str:
    return uuid.uuid4().hex


def invalidate() -> None:
    """Make every process reload the values on its next read (a version never used before)."""
    cache.set(VERSION_KEY, _new_version(), None)


def validate(changes: dict, current: dict | None = None) -> dict:
    """The typed subset of `changes` that Harbor would apply; unknown keys are dropped."""
    typed = {}
    for key, raw in changes.items():
        if key not in ITEMS:
            continue
        value = coerce(key, raw)
        if key in NON_EMPTY and value == "":
            raise ConfigurationError(f"{key} cannot be empty")
        if key in VALIDATORS:
            VALIDATORS[key](key, value)
        typed[key] = value
    if any(key.startswith("ldap_group_") for key in typed):
        _check_ldap_groups(typed, values() if current is None else current)
    return typed


def update(changes: dict) -> dict:
    """Validate and store a subset of keys; returns what was stored."""
    typed = validate(changes)
    with transaction.atomic():
        for key, value in typed.items():
            ConfigEntry.objects.update_or_create(key=key, defaults={"value": value})
        # Now for this connection's own reads, and again once others can see the rows.
        invalidate()
        transaction.on_commit(invalidate)
    return typed
