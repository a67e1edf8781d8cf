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
from collections import Counter

import pytest

from tests.services.servers import free_port, wait_for_port
from tests.services.web import GUNICORN, ROOT


@contextlib.contextmanager
def serving(tmp_path_factory, workers: int):
    """gunicorn with the worker, `workers` processes of 2 threads, serving
    tests/foundation/probe_wsgi.py."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("worker") / "gunicorn.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                GUNICORN,
                "--worker-class",
                "config.gunicorn_worker.LingeringThreadWorker",
                "--workers",
                str(workers),
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory, workers=1) as port:
        yield port


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


def test_kept_alive_connections_are_spread_evenly_over_the_processes(tmp_path_factory):
    """Clients that connect and stay connected end half on each process (the first
    process to wake took them all), whether they connect one by one or all at once."""
    with serving(tmp_path_factory, workers=2) as port, contextlib.ExitStack() as stack:
        with contextlib.ExitStack() as booting:  # until both processes serve
            seen, deadline = set(), time.monotonic() + 30
            while len(seen) < 2 and time.monotonic() < deadline:
                sock = booting.enter_context(connection(port))
                ask(sock, "GET", "/pid")
                seen.add(answer(sock))
        assert len(seen) == 2
        time.sleep(0.5)  # the processes count those connections closed
        held = []
        for _ in range(8):
            sock = stack.enter_context(connection(port))
            ask(sock, "GET", "/pid")
            held.append(answer(sock))
        assert sorted(Counter(held).values()) == [4, 4]

        at_once = [stack.enter_context(connection(port)) for _ in range(8)]
        for sock in at_once:
            ask(sock, "GET", "/pid")
        spread = Counter(answer(sock) for sock in at_once)
        assert len(spread) == 2 and max(spread.values()) <= 5, spread


def test_the_master_builds_the_harbor_tables_before_it_forks(monkeypatch):
    """Harbor's schema tables (~0.6 s of CPU and ~30 MiB) are built once in gunicorn's
    master, before the freeze and the fork, so that the web processes share them instead of
    each building them on its first Harbor request."""
    import gc

    from config import gunicorn as gunicorn_config
    from registry.api import harbor_schema

    built = []
    monkeypatch.setattr(harbor_schema, "segment_patterns", lambda: built.append(gc.isenabled()))
    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(len(built)))
    monkeypatch.setattr(gc, "set_threshold", lambda *thresholds: None)
    gunicorn_config.when_ready(server=None)
    assert built and frozen == [1]  # built, then frozen with everything else
