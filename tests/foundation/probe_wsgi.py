"""A WSGI app for the gunicorn worker's tests: echoes the method, path and body length;
`/slow` answers after half a second, `/pid` with the process's id."""

import os
import time


def application(environ, start_response):
    body = environ["wsgi.input"].read() if environ["PATH_INFO"] == "/read" else b""
    if environ["PATH_INFO"] == "/slow":
        time.sleep(0.5)
    answer = f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']} {len(body)}".encode()
    if environ["PATH_INFO"] == "/pid":
        answer = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(answer)))])
    return [answer]
