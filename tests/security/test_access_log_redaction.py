"""gunicorn's access log (as `make run` starts it) never carries a secret: the values of
?token=, ?access_token= and every other secret query parameter, in the request line and
the referer, are written as [REDACTED]; the rest of the line stays useful."""

import re
import socket

import pytest
import requests

from tests.conftest import wait_until
from tests.registry_oci.test_gunicorn import web_server

pytestmark = pytest.mark.django_db

SECRETS = {
    "token": "tok-3f9a1c",
    "access_token": "acc-77e2b0",
    "Access_Token": "enc-55aa01",
    "client_secret": "cs-91d3f4",
    "password": "pw-c0ffee",
    "code": "oauth-8b8b8b",
}


def send_raw(host: str, request: str) -> bytes:
    name, port = host.split(":")
    with socket.create_connection((name, int(port)), timeout=30) as connection:
        connection.sendall(request.encode("latin-1"))
        return connection.recv(65536)


def test_secret_query_parameters_are_redacted_in_the_access_log(tmp_path):
    log_path = tmp_path / "gunicorn.log"
    query = "&".join(f"{name}={value}" for name, value in SECRETS.items())
    with web_server(log_path) as (base, _):
        paths = [
            f"/api/v1/version?{query}&page=2",
            f"/api/v2.0/projects?page=3;token={SECRETS['token']}",
            f"/v1/1/products?access_token={SECRETS['access_token']}",
        ]
        for path in paths:
            requests.get(
                base + path,
                headers={"Referer": f"https://app.example.com/cb?token={SECRETS['token']}"},
                timeout=30,
            )
        # A request line gunicorn refuses is logged as a warning, the line quoted; a
        # target in absolute form may carry a password before the host.
        host = base.removeprefix("http://")
        for line in (
            f"GET /api/v1/user?token={SECRETS['token']}\x01 HTTP/1.1",
            f"GET http://u:{SECRETS['password']}@{host}/api/v1/version HTTP/1.1",
        ):
            send_raw(host, f"{line}\r\nHost: {host}\r\nConnection: close\r\n\r\n")
        # gunicorn writes a request's line after its response: wait for them all
        # before the server is stopped.
        wait_until(
            lambda: (
                log_path.read_text().count('"GET /') >= len(paths)
                and "Invalid request from" in log_path.read_text()
            ),
            message="the access log lines",
        )
    log = log_path.read_text()
    for secret in SECRETS.values():
        assert secret not in log
    # Each process writes its line after its response, so two processes' lines may
    # come in either order: find each request's line by its path.
    assert "Invalid HTTP request line: 'GET /api/v1/user?token=[REDACTED]" in log
    assert '"GET http://[REDACTED]@' in log
    lines = [line for line in log.splitlines() if '"GET /' in line]
    assert len(lines) == 3, log
    version, projects, products = (
        next(line for line in lines if f'"GET {prefix}' in line)
        for prefix in ("/api/v1/version?", "/api/v2.0/projects?", "/v1/1/products?")
    )
    assert "GET /api/v1/version?token=[REDACTED]&access_token=[REDACTED]" in version
    assert "Access_Token=[REDACTED]&client_secret=[REDACTED]&password=[REDACTED]" in version
    assert "code=[REDACTED]&page=2 HTTP/1.1" in version
    assert "GET /api/v2.0/projects?page=3;token=[REDACTED] HTTP/1.1" in projects
    assert "GET /v1/1/products?access_token=[REDACTED] HTTP/1.1" in products
    # The whole line as config.gunicorn's access_log_format has it.
    shape = r'^127\.0\.0\.1 "GET /v1/1/products\?access_token=\[REDACTED\] HTTP/1\.1"'
    shape += r" \d{3} \d+ \d+ms rid=[0-9a-f-]{36}$"
    assert re.search(shape, products), products
