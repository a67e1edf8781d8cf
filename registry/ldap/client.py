"""The LDAP directory client of the registry: settings, connections, searches, errors.

Everything reads the system configuration (registry.configuration, cached and shared by
every process) at call time, so a PUT /configurations takes effect at once. Every network
step is bounded by `ldap_timeout`: connect, TLS handshake and each operation.
Directory failures are domain errors with Harbor's wording, so views and services can
let them propagate. The bind password never appears in a message, a repr or a log line.
"""

import socket
import ssl
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import ldap
from django.conf import settings

from registry import configuration
from registry.errors import BadRequest, Conflict, RegistryError, ServiceUnavailable
from registry.ldap.syntax import Endpoint, is_dn, parse_url

LDAP_AUTH = "ldap_auth"
# Enough for a search page in the UI; a directory may hold far more entries.
SIZE_LIMIT = 1000


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


def attribute_values(attributes: dict, name: str) -> list[str]:
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
        values = attribute_values(attributes, name)
        if values:
            return values[0]
    return ""
