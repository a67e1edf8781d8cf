"""Helpers of the registry's adversarial tests: raw HTTP to the live server, sockets that
hold a request open mid-body, and the registry_oci fixtures (live server, owner, `team`)."""

import base64
import contextlib
import socket
from urllib.parse import urlsplit

from tests.registry.factories import PASSWORD
from tests.registry_oci.conftest import (  # noqa: F401  (fixtures used by the tests)
    Registry,
    admin,
    owner,
    project,
    public_project,
    reg,
    registry_url,
    sha256,
)


def basic_header(username: str, password: str = PASSWORD) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


class OpenRequest:
    """A request written by hand on its own socket, so its body can be held back midway."""

    def __init__(self, base_url: str, method: str, path: str, headers: dict):
        parts = urlsplit(base_url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def abort(self) -> None:
        """The client goes away mid-body."""
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def status_before_body(self, body: bytes, wait: float = 5.0) -> int:
        """The status of a request the server may answer without reading its body; the
        body is sent only if no answer came within `wait` seconds."""
        self.sock.settimeout(wait)
        try:
            received = self.sock.recv(65536)
        except TimeoutError:
            received = b""
        self.sock.settimeout(30)
        if not received:
            with contextlib.suppress(OSError):
                self.sock.sendall(body)
        return self.status(received)

    def status(self, received: bytes = b"") -> int:
        """The status line's code (the server may still be draining an unread body)."""
        while b"\r\n" not in received:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            received += chunk
        self.sock.close()
        return int(received.split(b" ", 2)[1])
