"""A real HTTP endpoint on loopback standing in for an app's webhook receiver.

It records every request (path, headers, exact body, arrival time) and answers each path
from a plan: status codes in order, or "hang" (answer nothing for a while), then 200.
"""

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    client_port: int
    at: float = field(default_factory=time.time)


class Receiver:
    def __init__(self):
        self.requests: list[Received] = []
        self.plans: dict[str, list] = {}
        self.hang_seconds = 30.0
        self.lock = threading.Lock()
        self.released = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver.lock:
                    receiver.requests.append(
                        Received(self.path, dict(self.headers), body, self.client_address[1])
                    )
                    plan = receiver.plans.get(self.path) or []
                    action = plan.pop(0) if plan else 200
                if action == "hang":
                    receiver.released.wait(receiver.hang_seconds)
                    self.close_connection = True
                    return
                self.send_response(action)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def plan(self, path: str, *actions) -> None:
        """Answer the next requests to `path` with these actions (ints or "hang")."""
        with self.lock:
            self.plans[path] = list(actions)

    def at(self, path: str) -> list[Received]:
        with self.lock:
            return [item for item in self.requests if item.path == path]

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()
