"""Helpers of the registry's adversarial tests: raw HTTP to the live server, sockets that
hold a request open mid-body, and the registry_oci fixtures (live server, owner, `team`)."""

import base64
import socket
import time
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

    def status(self) -> int:
        """The status line's code (reads the whole answer; the server closes after it)."""
        received = b""
        while chunk := self.sock.recv(65536):
            received += chunk
        self.sock.close()
        return int(received.split(b" ", 2)[1])


def settle(seconds: float = 0.5) -> None:
    """Lets the server get into the request it has just been sent (no observable signal)."""
    time.sleep(seconds)
