"""Digests computed while upload bodies are received: kept per upload between requests of
one process, and fed from a thread pool beside the request thread."""

import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor


class RunningHashers:
    """The digest of each upload's bytes so far, kept while the same process receives it.

    An entry is only used while the staged file is exactly as this process left it (same
    size, change time and inode): chunks of one upload may reach other processes (or
    arrive after a restart), and then the digest is computed by reading the file again.
    """

    LIMIT = 256

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[tuple, object]] = OrderedDict()

    def take(self, key: str, stamp: tuple, algorithm: str):
        with self._lock:
            entry = self._entries.pop(key, None)
        if entry is not None and entry[0] == stamp and entry[1].name == algorithm:
            return entry[1]
        return None

    def keep(self, key: str, stamp: tuple, hasher) -> None:
        with self._lock:
            self._entries[key] = (stamp, hasher)
            while len(self._entries) > self.LIMIT:
                self._entries.popitem(last=False)

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)


running = RunningHashers()

# Hashing runs beside the request thread: hashlib releases the GIL on large updates, so
# a chunk is hashed while the next one is received and written (sha256 costs more CPU
# than the rest of an upload together).
_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="blob-hash")


class OverlappedHasher:
    """Feeds a hasher from the `_pool`, one chunk in flight at a time, in order."""

    def __init__(self, hasher):
        self.hasher = hasher
        self._pending: Future | None = None

    def update(self, chunk: bytes) -> None:
        self.finish()
        self._pending = _pool.submit(self.hasher.update, chunk)

    def finish(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()
