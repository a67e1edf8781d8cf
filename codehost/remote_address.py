"""Migration clone addresses: parsing, who may import what, which hosts may be reached,
which hosted service an address belongs to, and scrubbing credentials out of text.

Follows Gitea's forms.ParseRemoteAddr, migrations.IsMigrateURLAllowed and its
hostmatcher: with no allow list only external (public) addresses are allowed, loopback
and private networks are added by CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS, and a block
list always wins. A host name is resolved and every address it resolves to must pass.
"""

import fnmatch
import ipaddress
import os
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from django.conf import settings

from codehost.errors import Invalid
from config.outbound import embedded_ipv4, resolve

NETWORK_SCHEMES = ("http", "https", "git")
LOCAL_FILESYSTEM = "<LOCAL_FILESYSTEM>"
MASKED_CREDENTIAL = "sanitized-credential"
# scheme://user[:password]@ in free text (error messages, git output, log lines).
CREDENTIALS_IN_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^\s/@'\"]+@")
# user:password@ opening an address with no scheme (scp-like `user:pw@host:path`).
LEADING_CREDENTIALS = re.compile(r"^[^/@]*:[^/@]*@")

# Hosts whose service is known without the `service` field (Gitea's web form presets).
KNOWN_HOSTS = {
    "github.com": "github",
    "www.github.com": "github",
    "gitlab.com": "gitlab",
    "gitea.com": "gitea",
    "codeberg.org": "gitea",
    "try.gogs.io": "gogs",
    "code.onedev.io": "onedev",
}
KNOWN_HOST_SUFFIXES = {
    ".codebasehq.com": "codebase",
    ".amazonaws.com": "codecommit",
}


class InvalidCloneAddress(Invalid):
    """Worded as Gitea's handleRemoteAddrError."""

    @classmethod
    def url_error(cls, host: str) -> "InvalidCloneAddress":
        named = scrub(LEADING_CREDENTIALS.sub(f"{MASKED_CREDENTIAL}@", host))
        return cls(f"migration/cloning from '{named}' is not allowed: the provided url is invalid")

    @classmethod
    def bad_protocol(cls, host: str) -> "InvalidCloneAddress":
        return cls(
            f"migration/cloning from '{scrub(host)}' is not allowed: "
            "the provided url protocol is not allowed"
        )

    @classmethod
    def local_not_allowed(cls) -> "InvalidCloneAddress":
        return cls("You are not allowed to import local repositories.")

    @classmethod
    def invalid_local_path(cls) -> "InvalidCloneAddress":
        return cls("Invalid local path, it does not exist or not a directory.")

    @classmethod
    def disallowed_host(cls) -> "InvalidCloneAddress":
        return cls("You can not import from disallowed hosts.")


@dataclass(frozen=True)
class CloneSource:
    """A validated migration source. `url` never carries credentials; they travel apart."""

    url: str
    host: str
    is_local: bool
    # Credentials written into the address itself (https://user:pass@host/...).
    username: str = ""
    password: str = ""


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` without URL credentials and without any of `secrets` (passwords, tokens)."""
    text = CREDENTIALS_IN_URL.sub(rf"\1{MASKED_CREDENTIAL}@", text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "********")
    return text


def parse_clone_address(raw: str, *, may_import_local: bool) -> CloneSource:
    """Validate a clone address as Gitea does; raises InvalidCloneAddress."""
    address = raw.strip()
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError as error:
        raise InvalidCloneAddress.url_error(address) from error
    scheme = parts.scheme.lower()
    if not scheme and ":" in address.split("/", 1)[0]:
        # scp-like `git@host:path`: as Go's url.Parse, a colon in the first segment is invalid.
        raise InvalidCloneAddress.url_error(address)
    if scheme in ("", "file"):
        return _local_source(parts, may_import_local)
    if scheme not in NETWORK_SCHEMES or not parts.netloc:
        # Named by its host as Go's url.URL.Host: never the user:password before it.
        raise InvalidCloneAddress.bad_protocol(parts.netloc.rpartition("@")[2])
    host = parts.hostname or ""
    if not host or "\r" in address or "\n" in address or "%0d" in address.lower():
        raise InvalidCloneAddress.url_error(address)
    check_host_allowed(host)
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    url = urlunsplit((scheme, netloc, parts.path, parts.query, ""))
    return CloneSource(
        url=url,
        host=host,
        is_local=False,
        username=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
    )


def _local_source(parts, may_import_local: bool) -> CloneSource:
    if not may_import_local:
        raise InvalidCloneAddress.local_not_allowed()
    path = parts.netloc + parts.path if parts.scheme else urlunsplit(parts)
    if not os.path.isabs(path) or not os.path.isdir(path):
        raise InvalidCloneAddress.invalid_local_path()
    return CloneSource(url=os.path.normpath(path), host=LOCAL_FILESYSTEM, is_local=True)


class HostMatchList:
    """Gitea's hostmatcher list: built-in names, CIDR networks and host name globs."""

    BUILTINS = ("*", "external", "private", "loopback")

    def __init__(self, entries: list[str]):
        self.builtins: set[str] = set()
        self.networks = []
        self.patterns: list[str] = []
        for entry in (item.strip().lower() for item in entries):
            if not entry:
                continue
            if entry in self.BUILTINS:
                self.builtins.add(entry)
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.patterns.append(entry)

    def is_empty(self) -> bool:
        return not (self.builtins or self.networks or self.patterns)

    def match_host_name(self, host: str) -> bool:
        host = host.lower()
        if "*" in self.builtins or any(fnmatch.fnmatchcase(host, p) for p in self.patterns):
            return True
        try:
            return self.match_ip(ipaddress.ip_address(host))
        except ValueError:
            return False

    def match_ip(self, ip) -> bool:
        # An IPv6 spelling of an IPv4 address (mapped, 6to4, Teredo, NAT64) is judged as
        # that address: 64:ff9b::a9fe:a9fe is the metadata service behind a NAT64 gateway.
        ip = embedded_ipv4(ip)
        if "*" in self.builtins or any(ip in network for network in self.networks):
            return True
        loopback = ip.is_loopback
        private = ip.is_private and not loopback and not ip.is_link_local and not ip.is_unspecified
        external = ip.is_global and not ip.is_multicast
        return (
            ("loopback" in self.builtins and loopback)
            or ("private" in self.builtins and private)
            or ("external" in self.builtins and external)
        )


def check_host_allowed(host: str) -> list:
    """Refuse (InvalidCloneAddress) a host the allow/block rules refuse; the addresses it
    resolves to now, every one of them checked."""
    allow = HostMatchList(settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS)
    block = HostMatchList(settings.CODEHOST_MIGRATIONS_BLOCKED_DOMAINS)
    if allow.is_empty():
        allow.builtins.add("external")
    if settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS:
        allow.builtins.update({"private", "loopback"})
    addresses = resolve(host)
    # Every address must be allowed and none blocked: a name that resolves to a public
    # and a private address could otherwise be used to reach the private one.
    if block.match_host_name(host) or any(block.match_ip(ip) for ip in addresses):
        raise InvalidCloneAddress.disallowed_host()
    if allow.match_host_name(host):
        return addresses
    if not addresses or not all(allow.match_ip(ip) for ip in addresses):
        raise InvalidCloneAddress.disallowed_host()
    return addresses


DEFAULT_PORTS = {"http": 80, "https": 443, "git": 9418}


@dataclass(frozen=True)
class PinnedRemote:
    """A remote address checked just now, and the git configuration that makes git connect
    to the very addresses checked, whatever the name resolves to a moment later (DNS
    rebinding): curl's resolve list for http(s), a URL rewrite for git://."""

    config: tuple[tuple[str, str], ...] = ()


def pin_remote(url: str) -> PinnedRemote:
    """Check `url` against the allow/block rules as they are now (InvalidCloneAddress when
    refused) and pin its host name to the addresses checked. Local paths (admins' imports)
    have no host and nothing to pin."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in NETWORK_SCHEMES:
        return PinnedRemote()
    try:
        host, port = parts.hostname or "", parts.port or DEFAULT_PORTS[scheme]
    except ValueError as error:
        raise InvalidCloneAddress.url_error(url) from error
    if not host:
        raise InvalidCloneAddress.url_error(url)
    addresses = check_host_allowed(host)
    if not addresses or _is_ip_literal(host):
        return PinnedRemote()
    literals = [f"[{ip}]" if ip.version == 6 else str(ip) for ip in addresses]
    if scheme == "git":
        prefix = f"{scheme}://{parts.netloc}/"
        return PinnedRemote(((f"url.git://{literals[0]}:{port}/.insteadOf", prefix),))
    return PinnedRemote((("http.curloptResolve", f"{host}:{port}:{','.join(literals)}"),))


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def detect_service(service: str, source: CloneSource) -> str:
    """Gitea's service name for a migration: the given one when known, else from the host."""
    if service:
        return service
    host = source.host.lower()
    if host in KNOWN_HOSTS:
        return KNOWN_HOSTS[host]
    for suffix, name in KNOWN_HOST_SUFFIXES.items():
        if host.endswith(suffix) and (name != "codecommit" or host.startswith("git-codecommit.")):
            return name
    return "git"
