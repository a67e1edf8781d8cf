"""Connections to addresses users give (webhook receivers, migration remotes).

A host is judged by the addresses it resolves to, resolved the way the connection will
resolve them (the system resolver also reads `127.1`, `2130706433` and `0x7f000001` as
127.0.0.1). `CheckedAdapter` makes `requests` check the address of every new connection
as it is resolved then and connect to exactly that address: a name cannot pass the check
and then be answered differently for the connection (DNS rebinding).
"""

import ipaddress
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# IPv6 prefixes that carry an IPv4 address (NAT64): judged by the address they carry.
NAT64 = ipaddress.ip_network("64:ff9b::/96")


class RefusedAddress(OSError):
    """The host resolves to nothing, or to an address outbound connections may not reach."""


def resolve(host: str) -> list[Address]:
    """Every address `host` resolves to now (an IP literal is its own address)."""
    host = host.strip("[]")
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]


def embedded_ipv4(ip: Address) -> Address:
    """The IPv4 address an IPv6 form stands for (::ffff:a.b.c.d, 6to4, Teredo, NAT64, and
    the deprecated IPv4-compatible ::a.b.c.d, which Python's is_global calls global)."""
    if ip.version == 6:
        if int(ip) >> 32 == 0 and int(ip) > 1:  # :: and ::1 are IPv6's own
            return ipaddress.IPv4Address(int(ip))
        if ip.ipv4_mapped:
            return ip.ipv4_mapped
        if ip.sixtofour:
            return ip.sixtofour
        if ip.teredo:
            return ip.teredo[1]
        if ip in NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def is_public(ip: Address) -> bool:
    """Reachable on the internet: not loopback, private, link-local, unspecified (0.0.0.0,
    ::), multicast or reserved, in any of its spellings."""
    ip = embedded_ipv4(ip)
    return ip.is_global and not ip.is_multicast


def checked_addresses(host: str, *, allow_local: bool) -> list[Address]:
    """The addresses `host` resolves to now, all of them acceptable; else RefusedAddress.

    Every address must pass: a name resolving to a public and a private address could
    otherwise be used to reach the private one."""
    addresses = resolve(host)
    if not addresses:
        raise RefusedAddress(f"refused address: {host} does not resolve")
    if not allow_local and not all(is_public(ip) for ip in addresses):
        raise RefusedAddress(f"refused address: {host} is a local or private address")
    return addresses


_cutoff = threading.local()


@contextmanager
def cut_off_after(seconds: float) -> Iterator[None]:
    """Connections of `CheckedAdapter` that this thread reads an answer from inside the
    block are shut down `seconds` after it began. A read timeout bounds each read only: an
    endpoint sending one byte per read timeout (status line, headers, body) would hold the
    thread for hours; once shut down, the read fails at once."""
    sockets: list[socket.socket] = []
    timer = threading.Timer(seconds, lambda: [_shut(sock) for sock in list(sockets)])
    timer.daemon = True
    _cutoff.sockets = sockets
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        _cutoff.sockets = None


def _shut(sock: socket.socket) -> None:
    with suppress(OSError):  # closed already
        sock.shutdown(socket.SHUT_RDWR)


class _PinnedConnection:
    """A urllib3 connection that checks its host's addresses when it connects and connects
    to the first of them (TLS still verifies the certificate against the host name)."""

    allow_local: Callable[[], bool]

    def getresponse(self, *args, **kwargs):
        sockets = getattr(_cutoff, "sockets", None)
        if sockets is not None and self.sock is not None:
            sockets.append(self.sock)
        return super().getresponse(*args, **kwargs)

    def _new_conn(self):
        name = self._dns_host
        address = checked_addresses(name, allow_local=self.allow_local())[0]
        self._dns_host = str(address)
        try:
            return super()._new_conn()
        finally:
            self._dns_host = name


class CheckedAdapter(HTTPAdapter):
    """A requests adapter whose connections reach only acceptable addresses; `allow_local`
    is asked at each connection (a setting may open loopback and private networks)."""

    def __init__(self, allow_local: Callable[[], bool], **kwargs):
        policy = {"allow_local": staticmethod(allow_local)}
        http = type("CheckedHTTPConnection", (_PinnedConnection, HTTPConnection), policy)
        https = type("CheckedHTTPSConnection", (_PinnedConnection, HTTPSConnection), policy)
        self.pool_classes = {
            "http": type("CheckedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": http}),
            "https": type("CheckedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": https}),
        }
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = self.pool_classes
