"""Smart HTTP: one `git http-backend` run per request, streamed both ways."""

import contextlib
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings

from codehost.git.process import BASE_ENV, GIT
from codehost.git.repos import root


@dataclass
class CGIResponse:
    status: int
    headers: list[tuple[str, str]]
    body: Iterator[bytes]


def http_backend(
    path_info: str, cgi_env: dict, body: Iterator[bytes], on_finish=None
) -> CGIResponse:
    """Run `git http-backend` for one smart HTTP request, streaming both ways.

    `path_info` is `/<owner>/<repo>.git/<rest>` under CODEHOST_GIT_ROOT; the request body
    is fed from a thread while the response is read lazily; the process is killed after
    CODEHOST_GIT_TIMEOUT. `on_finish(returncode)` runs once the response is consumed.
    """
    env = {
        **BASE_ENV,
        **cgi_env,
        "GIT_PROJECT_ROOT": str(root()),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": path_info,
    }
    process = subprocess.Popen(
        [GIT, "http-backend"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    timer = threading.Timer(settings.CODEHOST_GIT_TIMEOUT, process.kill)
    timer.daemon = True
    timer.start()

    def feed():
        try:
            for chunk in body:
                process.stdin.write(chunk)
        except (BrokenPipeError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                process.stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    status, headers = _read_cgi_headers(process.stdout)

    def stream():
        try:
            while chunk := process.stdout.read1(65536):
                yield chunk
        finally:
            process.stdout.close()
            feeder.join(timeout=5)
            returncode = process.wait()
            timer.cancel()
            if on_finish is not None:
                on_finish(returncode)

    return CGIResponse(status=status, headers=headers, body=stream())


def _read_cgi_headers(stdout) -> tuple[int, list[tuple[str, str]]]:
    status = 200
    headers = []
    while True:
        line = stdout.readline()
        if not line or line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("latin-1").partition(":")
        value = value.strip()
        if name.lower() == "status":
            status = int(value.split()[0])
        else:
            headers.append((name.strip(), value))
    return status, headers
