"""The LDAP directory client of the registry, as Harbor uses its directory.

Everything reads the system configuration (registry.configuration, cached and shared by
every process) at call time, so a PUT /configurations takes effect at once. Every network
step is bounded by `ldap_timeout`: connect, TLS handshake and each operation.
Directory failures are domain errors with Harbor's wording, so views and services can
let them propagate. The bind password never appears in a message, a repr or a log line.
"""

import hashlib
import logging
import socket
import ssl
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import ldap
import ldap.filter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX, make_password
from django.core.cache import cache
from django.db.models import Q

from registry import configuration
from registry.errors import BadRequest, Conflict, RegistryError, ServiceUnavailable
from registry.ldap_syntax import (
    Endpoint,
    and_filters,
    is_attribute_name,
    is_dn,
    is_under,
    normalize_dn,
    normalize_filter,
    parse_url,
)
from registry.models import UserGroup, UserProfile

logger = logging.getLogger(__name__)

LDAP_AUTH = "ldap_auth"
# Enough for a search page in the UI; a directory may hold far more entries.
SIZE_LIMIT = 1000
# How long a user's group DNs (and so their group roles and admin flag) are trusted.
GROUP_CACHE_SECONDS = 60


# --- errors -------------------------------------------------------------------------------


class DirectoryError(RegistryError):
    """A directory failure with Harbor's reason text."""

    code, message = BadRequest.code, "ldap error"


class DirectoryMisconfigured(DirectoryError):
    """The configuration cannot work: empty or malformed URL, DN, filter or attribute."""


class DirectoryNotConfigured(DirectoryError):
    """No ldap_url: the request is fine, the system is not set up for it."""

    code, message = Conflict.code, "LDAP is not configured: ldap_url is empty"


def require_configured(conf: "DirectorySettings") -> None:
    if not conf.url.strip():
        raise DirectoryNotConfigured()


class InvalidCredential(DirectoryError):
    message = "invalid credential"


class DirectoryUnavailable(DirectoryError):
    """The server cannot be reached, or it does not answer within ldap_timeout."""

    code, message = ServiceUnavailable.code, "fail to ping LDAP server"


class DirectoryTimeout(DirectoryUnavailable):
    message = "ldap server network timeout"


def _detail(exc: ldap.LDAPError) -> str:
    info = exc.args[0] if exc.args and isinstance(exc.args[0], dict) else {}
    parts = [info.get("desc", ""), info.get("info", "")]
    return ": ".join(part for part in parts if part and part != "(unknown error code)")


def translate(exc: ldap.LDAPError) -> DirectoryError:
    """The DirectoryError for a python-ldap exception (messages never carry the password)."""
    if isinstance(exc, ldap.TIMEOUT | ldap.TIMELIMIT_EXCEEDED):
        return DirectoryTimeout()
    if isinstance(exc, ldap.SERVER_DOWN | ldap.CONNECT_ERROR):
        return DirectoryUnavailable(f"fail to ping LDAP server: {_detail(exc)}")
    if isinstance(exc, ldap.INVALID_CREDENTIALS):
        return InvalidCredential()
    if isinstance(exc, ldap.FILTER_ERROR):
        return DirectoryMisconfigured("invalid filter syntax")
    if isinstance(exc, ldap.INVALID_DN_SYNTAX):
        return DirectoryMisconfigured("invalid DN syntax")
    return DirectoryError(f"ldap error: {_detail(exc)}")


# --- settings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectorySettings:
    url: str = ""
    search_dn: str = ""
    search_password: str = field(default="", repr=False)
    base_dn: str = ""
    filter: str = ""
    uid_attribute: str = "cn"
    scope: int = ldap.SCOPE_SUBTREE
    timeout: int = 5
    verify_cert: bool = True
    group_base_dn: str = ""
    group_filter: str = ""
    group_name_attribute: str = ""
    group_scope: int = ldap.SCOPE_SUBTREE
    group_admin_dn: str = ""
    membership_attribute: str = "memberof"

    @classmethod
    def from_config(cls, values: dict) -> "DirectorySettings":
        return cls(
            url=values["ldap_url"],
            search_dn=values["ldap_search_dn"],
            search_password=values["ldap_search_password"],
            base_dn=values["ldap_base_dn"],
            filter=values["ldap_filter"],
            uid_attribute=values["ldap_uid"] or "cn",
            scope=values["ldap_scope"],
            timeout=values["ldap_timeout"],
            verify_cert=values["ldap_verify_cert"],
            group_base_dn=values["ldap_group_base_dn"],
            group_filter=values["ldap_group_search_filter"],
            group_name_attribute=values["ldap_group_attribute_name"] or "cn",
            group_scope=values["ldap_group_search_scope"],
            group_admin_dn=values["ldap_group_admin_dn"],
            membership_attribute=values["ldap_group_membership_attribute"] or "memberof",
        )

    @property
    def groups_base(self) -> str:
        """Harbor falls back to the user base DN when no group base DN is set."""
        return self.group_base_dn or self.base_dn


def current_settings() -> DirectorySettings:
    return DirectorySettings.from_config(configuration.values())


def ldap_mode() -> bool:
    return configuration.get("auth_mode") == LDAP_AUTH


# --- connection ---------------------------------------------------------------------------


def _tls_context(conf: DirectorySettings) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=settings.REGISTRY_LDAP_CA_FILE or None)
    if not conf.verify_cert:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _probe_tls(endpoint: Endpoint, conf: DirectorySettings) -> None:
    """Connect and complete a TLS handshake within the timeout before libldap does.

    libldap's own ldaps handshake ignores every timeout option: a server that accepts and
    never answers would hang the request. This probe bounds that case and gives readable
    certificate errors.
    """
    try:
        with (
            socket.create_connection((endpoint.host, endpoint.port), conf.timeout) as raw,
            _tls_context(conf).wrap_socket(raw, server_hostname=endpoint.host),
        ):
            pass
    except TimeoutError:
        raise DirectoryTimeout() from None
    except ssl.SSLCertVerificationError as exc:
        raise DirectoryUnavailable(f"fail to ping LDAP server: {exc.verify_message}") from None
    except (OSError, ssl.SSLError) as exc:
        raise DirectoryUnavailable(f"fail to ping LDAP server: {exc.strerror or exc}") from None


def open_connection(conf: DirectorySettings):
    """An unbound connection with the timeouts, TLS settings and StartTLS of `conf`."""
    try:
        endpoint = parse_url(conf.url)
    except ValueError as exc:
        raise DirectoryMisconfigured(str(exc)) from None
    if endpoint.scheme == "ldaps":
        _probe_tls(endpoint, conf)
    connection = ldap.initialize(endpoint.uri, bytes_mode=False)
    connection.set_option(ldap.OPT_PROTOCOL_VERSION, ldap.VERSION3)
    connection.set_option(ldap.OPT_REFERRALS, 0)
    connection.set_option(ldap.OPT_NETWORK_TIMEOUT, float(conf.timeout))
    connection.set_option(ldap.OPT_TIMEOUT, float(conf.timeout))
    connection.timeout = conf.timeout
    connection.set_option(
        ldap.OPT_X_TLS_REQUIRE_CERT,
        ldap.OPT_X_TLS_DEMAND if conf.verify_cert else ldap.OPT_X_TLS_NEVER,
    )
    if settings.REGISTRY_LDAP_CA_FILE:
        connection.set_option(ldap.OPT_X_TLS_CACERTFILE, settings.REGISTRY_LDAP_CA_FILE)
    connection.set_option(ldap.OPT_X_TLS_NEWCTX, 0)
    if endpoint.scheme == "ldap" and settings.REGISTRY_LDAP_START_TLS:
        connection.start_tls_s()
    return connection


@contextmanager
def connect(conf: DirectorySettings, bind: bool = True):
    """An LDAP connection, bound as the search account unless `bind` is False.

    python-ldap errors raised inside the block come out as DirectoryError.
    """
    connection = None
    try:
        try:
            connection = open_connection(conf)
        except (ValueError, UnicodeError) as exc:
            # libldap or the resolver refuse a URL that parse_url let through.
            raise DirectoryMisconfigured(f"illegal ldap url: {exc}") from None
        if bind:
            connection.simple_bind_s(conf.search_dn, conf.search_password)
        yield connection
    except ldap.LDAPError as exc:
        raise translate(exc) from None
    finally:
        if connection is not None:
            with suppress(ldap.LDAPError):
                connection.unbind_s()


def search(connection, base: str, scope: int, filterstr: str, attributes: list[str]) -> list:
    """(dn, attributes) pairs; a partial answer when the server's size limit is reached."""
    if not is_dn(base):
        raise DirectoryMisconfigured(f"invalid DN syntax: {base!r}" if base else "empty base dn")
    entries = []
    try:
        message_id = connection.search_ext(
            base, scope, filterstr or "(objectClass=*)", attributes, sizelimit=SIZE_LIMIT
        )
        while True:
            kind, data, _, _ = connection.result3(message_id, all=0)
            if kind == ldap.RES_SEARCH_RESULT:
                break
            entries.extend((dn, attrs) for dn, attrs in data if dn is not None)
    except ldap.SIZELIMIT_EXCEEDED:
        pass
    except ldap.NO_SUCH_OBJECT:
        return []
    return entries


def _values(attributes: dict, name: str) -> list[str]:
    for key, values in attributes.items():
        if key.lower() == name.lower():
            # python-ldap gives bytes; django-auth-ldap has decoded them already.
            return [
                (value.decode("utf-8", "replace") if isinstance(value, bytes) else value).strip()
                for value in values
            ]
    return []


def first_value(attributes: dict, *names: str) -> str:
    for name in names:
        values = _values(attributes, name)
        if values:
            return values[0]
    return ""


# --- operations ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectoryUser:
    dn: str
    username: str
    realname: str
    email: str
    group_dns: tuple[str, ...] = ()


@dataclass(frozen=True)
class DirectoryGroup:
    dn: str
    name: str


def ping(conf: DirectorySettings) -> None:
    """Connect and bind as the search account; raises DirectoryError with the reason."""
    with connect(conf, bind=False) as connection:
        if not conf.search_dn:
            raise DirectoryMisconfigured("empty search dn")
        connection.simple_bind_s(conf.search_dn, conf.search_password)


def _check_user_settings(conf: DirectorySettings) -> None:
    if not is_attribute_name(conf.uid_attribute):
        raise DirectoryMisconfigured(f"invalid ldap_uid: {conf.uid_attribute!r}")
    if not is_attribute_name(conf.membership_attribute):
        raise DirectoryMisconfigured(
            f"invalid ldap_group_membership_attribute: {conf.membership_attribute!r}"
        )


def user_from_entry(conf: DirectorySettings, dn: str, attributes: dict) -> DirectoryUser:
    return DirectoryUser(
        dn=dn,
        username=first_value(attributes, conf.uid_attribute),
        realname=first_value(attributes, "cn", "uid"),
        email=first_value(attributes, "mail", "email"),
        group_dns=tuple(_values(attributes, conf.membership_attribute)),
    )


def search_users_on(connection, conf: DirectorySettings, username: str) -> list[DirectoryUser]:
    """Users whose ldap_uid equals `username` (every user when empty), as Harbor searches."""
    _check_user_settings(conf)
    wanted = ldap.filter.escape_filter_chars(username) if username else "*"
    filterstr = and_filters(normalize_filter(conf.filter), f"({conf.uid_attribute}={wanted})")
    attributes = ["uid", "cn", "mail", "email", conf.uid_attribute, conf.membership_attribute]
    entries = search(connection, conf.base_dn, conf.scope, filterstr, attributes)
    users = [user_from_entry(conf, dn, attrs) for dn, attrs in entries]
    return [user for user in users if user.username]


def search_users(conf: DirectorySettings, username: str = "") -> list[DirectoryUser]:
    require_configured(conf)
    _check_user_settings(conf)
    with connect(conf) as connection:
        return search_users_on(connection, conf, username)


def find_user(conf: DirectorySettings, username: str) -> DirectoryUser | None:
    if not username:
        return None
    matches = search_users(conf, username)
    return matches[0] if matches else None


def _check_group_settings(conf: DirectorySettings) -> None:
    if not is_attribute_name(conf.group_name_attribute):
        raise DirectoryMisconfigured(
            f"invalid ldap_group_attribute_name: {conf.group_name_attribute!r}"
        )


def _group_from_entry(conf: DirectorySettings, dn: str, attributes: dict) -> DirectoryGroup:
    return DirectoryGroup(dn=dn, name=first_value(attributes, conf.group_name_attribute) or dn)


def search_groups(conf: DirectorySettings, name: str = "") -> list[DirectoryGroup]:
    """Groups under the group base DN whose name attribute equals `name` (all when empty)."""
    require_configured(conf)
    _check_group_settings(conf)
    wanted = ldap.filter.escape_filter_chars(name) if name else "*"
    filterstr = and_filters(
        normalize_filter(conf.group_filter), f"({conf.group_name_attribute}={wanted})"
    )
    with connect(conf) as connection:
        entries = search(
            connection, conf.groups_base, conf.group_scope, filterstr, [conf.group_name_attribute]
        )
    return [_group_from_entry(conf, dn, attrs) for dn, attrs in entries]


def group_by_dn(conf: DirectorySettings, dn: str) -> DirectoryGroup | None:
    """The group at `dn` if it exists under the group base DN and matches the group filter."""
    require_configured(conf)
    if not is_dn(dn):
        raise DirectoryMisconfigured(f"invalid DN syntax. DN: {dn}")
    _check_group_settings(conf)
    if conf.groups_base and not is_under(conf.groups_base, dn):
        return None
    with connect(conf) as connection:
        entries = search(
            connection,
            dn,
            ldap.SCOPE_BASE,
            normalize_filter(conf.group_filter),
            [conf.group_name_attribute],
        )
    return _group_from_entry(conf, *entries[0]) if entries else None


def user_group_dns(conf: DirectorySettings, user: DirectoryUser, connection) -> frozenset[str]:
    """The user's groups from the membership attribute (memberof), kept to those under the
    group base DN and, when a group filter is set, matching it."""
    dns = [dn for dn in user.group_dns if not conf.groups_base or is_under(conf.groups_base, dn)]
    if conf.group_filter:
        group_filter = normalize_filter(conf.group_filter)
        dns = [dn for dn in dns if search(connection, dn, ldap.SCOPE_BASE, group_filter, ["1.1"])]
    return frozenset(dns)


def lookup_user_groups(conf: DirectorySettings, username: str) -> frozenset[str] | None:
    """The group DNs of a directory user, or None when the user is not in the directory."""
    user = find_user(conf, username)
    if user is None:
        return None
    if not conf.group_filter:
        return user_group_dns(conf, user, None)
    with connect(conf) as connection:
        return user_group_dns(conf, user, connection)


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
