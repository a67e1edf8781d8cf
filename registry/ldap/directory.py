"""Directory operations as Harbor performs them: ping, user and group searches, a user's
groups. Connections and errors come from registry.ldap.client."""

from collections.abc import Mapping
from dataclasses import dataclass

import ldap
import ldap.filter

from registry import configuration
from registry.ldap.client import (
    DirectoryError,
    DirectoryMisconfigured,
    DirectorySettings,
    attribute_values,
    connect,
    first_value,
    require_configured,
    search,
)
from registry.ldap.syntax import and_filters, is_attribute_name, is_dn, is_under, normalize_filter


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


def ping_configuration(changes: Mapping, search_password: str = "") -> str:
    """Harbor's LDAP ping of the stored configuration with `changes` (configuration keys)
    applied: "" when the directory accepts the search account, else Harbor's error text."""
    stored = configuration.values()
    values = {**stored, **changes}
    # The stored password is only ever sent to the stored server.
    same_server = values["ldap_url"].strip() == stored["ldap_url"].strip()
    values["ldap_search_password"] = search_password or (
        stored["ldap_search_password"] if same_server else ""
    )
    conf = DirectorySettings.from_config(values)
    if not conf.search_password and conf.search_dn:
        return "error: empty password"
    try:
        ping(conf)
    except DirectoryError as exc:
        return f"error: {exc.message}"
    return ""


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
        group_dns=tuple(attribute_values(attributes, conf.membership_attribute)),
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
