"""Syntax of the directory settings: URLs, DNs, attribute names and filters.

Free of the configuration store and of the network, so configuration validation and the
directory client share it.
"""

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import ldap.dn

DEFAULT_PORTS = {"ldap": 389, "ldaps": 636}
ATTRIBUTE_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9-]*|[0-9]+(\.[0-9]+)+)$")


def is_dn(value: str) -> bool:
    return bool(value) and ldap.dn.is_dn(value)


def is_attribute_name(value: str) -> bool:
    return bool(ATTRIBUTE_NAME.match(value))


def normalize_filter(value: str) -> str:
    """Harbor accepts a filter without its outer parentheses."""
    value = value.strip()
    if value and not value.startswith("("):
        value = f"({value})"
    return value


def is_filter(value: str) -> bool:
    """Balanced parentheses around non-empty terms: what can be checked without a server."""
    value = normalize_filter(value)
    depth = 0
    escaped = value.replace("\\(", "").replace("\\)", "")
    for char in escaped:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0 and "()" not in escaped


def and_filters(*filters: str) -> str:
    present = [item for item in filters if item]
    return present[0] if len(present) == 1 else "(&{})".format("".join(present))


def normalize_dn(dn: str) -> str:
    """Case- and spacing-insensitive form of a DN, for comparisons only."""
    try:
        parts = ldap.dn.str2dn(dn)
    except ldap.DECODING_ERROR:
        return dn.strip().lower()
    return ldap.dn.dn2str(
        [[(name.lower(), value.lower(), kind) for name, value, kind in rdn] for rdn in parts]
    )


def is_under(base_dn: str, dn: str) -> bool:
    base, child = normalize_dn(base_dn), normalize_dn(dn)
    return child == base or child.endswith("," + base)


@dataclass(frozen=True)
class Endpoint:
    scheme: str
    host: str
    port: int

    @property
    def uri(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def _is_host(host: str) -> bool:
    """An IP address or a name the resolver can take (IDNA labels, no spaces or NULs)."""
    if any(char.isspace() or char == "\x00" for char in host):
        return False
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


def parse_url(url: str) -> Endpoint:
    """Harbor's reading of ldap_url: no scheme means ldap, port 636 means ldaps.

    ValueError (with Harbor's wording) when it cannot be used.
    """
    url = url.strip()
    if not url:
        raise ValueError("ldap_url is empty: LDAP is not configured")
    if "://" not in url:
        url = f"ldap://{url}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"illegal ldap url: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError("unknown ldap protocol")
    if not parts.hostname:
        raise ValueError("illegal ldap url: no host")
    if not _is_host(parts.hostname):
        raise ValueError(f"illegal ldap url: invalid host {parts.hostname!r}")
    if port == 636:
        scheme = "ldaps"
    return Endpoint(scheme, parts.hostname, port or DEFAULT_PORTS[scheme])
