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

A kept-alive connection stays with the process that accepted it, and every process is
woken by a new connection: the first to call `accept` took it. Eight clients connecting
at once often ended six on one process and two on the other, so one core did three
quarters of the work while the other idled for as long as the clients stayed connected.
Each process now publishes how many connections it holds (`ConnectionCounts`, memory
shared by the processes forked from the master), and one holding more than another
leaves a new connection to it, taking it itself only if no other did within
`ACCEPT_DEFER_SECONDS` (a process busy or stuck never keeps clients waiting longer).
"""

import multiprocessing
import os
import select
import threading
import time

from gunicorn.workers import gthread

LINGER_SECONDS = 0.05
SLICE_SECONDS = 0.002
ACCEPT_DEFER_SECONDS = 0.02
ACCEPT_CHECK_SECONDS = 0.0005


class ConnectionCounts:
    """Per process, its pid and the connections it holds, in shared memory. A slot whose
    process died without freeing it is taken again."""

    SLOTS = 64

    def __init__(self):
        self.pids = multiprocessing.RawArray("i", self.SLOTS)
        self.counts = multiprocessing.RawArray("i", self.SLOTS)
        self.lock = multiprocessing.Lock()

    def claim(self, pid: int) -> int | None:
        with self.lock:
            for slot in range(self.SLOTS):
                if not self.pids[slot] or not _alive(self.pids[slot]):
                    self.pids[slot], self.counts[slot] = pid, 0
                    return slot
        return None

    def free(self, slot: int) -> None:
        with self.lock:
            self.pids[slot] = 0

    def fewest_elsewhere(self, slot: int) -> int | None:
        """The fewest connections another live process holds (None: no other)."""
        held = [
            self.counts[other]
            for other in range(self.SLOTS)
            if other != slot and self.pids[other] and _alive(self.pids[other])
        ]
        return min(held, default=None)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# Made in the master at import, before it forks its workers.
COUNTS = ConnectionCounts()


class LingeringThreadWorker(gthread.ThreadWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._count_lock = threading.Lock()
        self._busy = 0  # pool threads running `handle`
        self._queued = 0  # connections submitted, not yet picked up by a thread

    def init_process(self):
        self._slot = COUNTS.claim(os.getpid())
        super().init_process()

    def run(self):
        try:
            super().run()
        finally:
            if self._slot is not None:
                COUNTS.free(self._slot)

    def murder_keepalived(self, force=False):
        # Called on every turn of the main loop, after closed connections were counted.
        super().murder_keepalived(force)
        self._publish()

    def _publish(self) -> None:
        if self._slot is not None:
            COUNTS.counts[self._slot] = self.nr_conns

    def accept(self, listener):
        if self._slot is not None:
            self._publish()
            deadline = time.monotonic() + ACCEPT_DEFER_SECONDS
            while time.monotonic() < deadline:
                fewest = COUNTS.fewest_elsewhere(self._slot)
                if fewest is None or self.nr_conns <= fewest:
                    break
                time.sleep(ACCEPT_CHECK_SECONDS)
                if not select.select([listener], [], [], 0)[0]:
                    return  # another process took it
        super().accept(listener)
        self._publish()

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
