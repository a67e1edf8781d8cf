"""gunicorn's threaded worker, with a kept-alive connection's next request served by the
thread that answered the previous one when it comes soon.

gunicorn's gthread worker hands every kept-alive connection back to its main thread
after each response (a pipe write, the poller re-armed), and the next request goes back
to a pool thread: three thread wake-ups per request. A client pulling an image sends its
requests back to back (manifest HEAD, GET, then blobs), so the thread that answered
waits briefly on the socket itself and serves the next request at once: one wake-up.

It waits only while another pool thread is idle and no request is queued for a thread,
and in short slices, so a new connection never waits on a lingering thread for longer
than a slice; past the linger the connection goes back to the poller as before.
"""

import select
import threading
import time

from gunicorn.workers import gthread

LINGER_SECONDS = 0.05
SLICE_SECONDS = 0.002


class LingeringThreadWorker(gthread.ThreadWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._count_lock = threading.Lock()
        self._busy = 0  # pool threads running `handle`
        self._queued = 0  # connections submitted, not yet picked up by a thread

    def enqueue_req(self, conn):
        with self._count_lock:
            self._queued += 1
        super().enqueue_req(conn)

    def handle(self, conn):
        with self._count_lock:
            self._queued -= 1
            self._busy += 1
        try:
            keepalive = super().handle(conn)
            while keepalive is True and self._next_request_soon(conn):
                keepalive = super().handle(conn)
            return keepalive
        finally:
            with self._count_lock:
                self._busy -= 1

    def _may_linger(self) -> bool:
        return self.alive and self._queued == 0 and self._busy < self.cfg.threads

    def _next_request_soon(self, conn) -> bool:
        """Whether the connection's next request (or its close) arrived within the linger;
        False sends the connection back to the poller."""
        if conn.parser.unreader.buf.getvalue():
            return True  # already read ahead
        poller = select.poll()
        poller.register(conn.sock, select.POLLIN)
        deadline = time.monotonic() + LINGER_SECONDS
        while self._may_linger():
            if poller.poll(SLICE_SECONDS * 1000):
                return True
            if time.monotonic() >= deadline:
                return False
        return False
