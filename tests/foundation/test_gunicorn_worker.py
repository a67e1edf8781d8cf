"""The web server's worker (config.gunicorn_worker): a kept-alive connection's requests
are answered whether they come back to back, pipelined, after the linger, or with a body
left unread; a lingering thread never keeps another client waiting."""

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time

import pytest

from tests.services.servers import free_port, wait_for_port
from tests.services.web import GUNICORN, ROOT


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """gunicorn with the worker, 2 threads, serving tests/foundation/probe_wsgi.py."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("worker") / "gunicorn.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                GUNICORN,
                "--worker-class",
                "config.gunicorn_worker.LingeringThreadWorker",
                "--threads",
                "2",
                "--bind",
                f"127.0.0.1:{port}",
                "tests.foundation.probe_wsgi",
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for_port(port, process, log_path, seconds=60)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


@contextlib.contextmanager
def connection(port: int):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        yield sock
    finally:
        sock.close()


def ask(sock, method: str, path: str, body: bytes = b"") -> None:
    head = f"{method} {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body)


def received(sock) -> bytes:
    data = sock.recv(4096)
    assert data, "the server closed the connection"
    return data


def answer(sock) -> bytes:
    """One response's body (it has a Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += received(sock)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(rest) < length:
        rest += received(sock)
    assert rest[length:] == b"", "more bytes than one response"
    return rest[:length]


def test_back_to_back_pipelined_and_late_requests_on_one_connection(server):
    with connection(server) as sock:
        for number in range(20):
            ask(sock, "GET", f"/n{number}")
            assert answer(sock) == f"GET /n{number} 0".encode()
        # Two requests in one write: the second is already read ahead with the first.
        sock.sendall(b"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        data = b""
        while data.count(b"GET /") < 2:
            data += received(sock)
        assert data.index(b"GET /a 0") < data.index(b"GET /b 0")
        # A body the app did not read, then a request after the linger is over.
        ask(sock, "POST", "/ignored", b"x" * 1000)
        assert answer(sock) == b"POST /ignored 0"
        time.sleep(0.3)
        ask(sock, "POST", "/read", b"y" * 1000)
        assert answer(sock) == b"POST /read 1000"


def test_a_lingering_thread_never_keeps_another_client_waiting(server):
    """Two threads: one busy with a slow request, one just answered a kept-alive
    connection; a third client is answered long before the slow request ends."""
    slow_answer = []
    with connection(server) as slow, connection(server) as idle, connection(server) as third:
        ask(slow, "GET", "/slow")
        waiting = threading.Thread(target=lambda: slow_answer.append(answer(slow)))
        waiting.start()
        time.sleep(0.05)
        ask(idle, "GET", "/quick")
        assert answer(idle) == b"GET /quick 0"
        began = time.monotonic()
        ask(third, "GET", "/third")
        assert answer(third) == b"GET /third 0"
        assert not slow_answer, "the third client waited for the slow request"
        assert time.monotonic() - began < 0.45
        waiting.join()
    assert slow_answer == [b"GET /slow 0"]
