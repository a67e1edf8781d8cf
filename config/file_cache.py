"""The embedded default's caches (no REDIS_URL): files under DATA_DIR, shared by the web,
worker and beat processes.

Django's file cache makes `add` and `incr` a read and then a write, so concurrent callers
overwrote each other: failed sign-ins counted at once were mostly lost (8 threads x 25
failures counted 39; through gunicorn, 16 clients got 32 password checks where the limit
is 10). Both run here under an exclusive flock of one lock file in the folder (not an
entry: `clear` and culling, which list entries by their suffix, leave it alone). Redis's
are atomic already.

Django's file cache also culls a third of its entries at random once it holds MAX_ENTRIES
(300 by default), and leaves an expired entry on disk until something reads it. The
failed sign-in counters (config.signin_throttle) are in a cache of their own, culled
expired entries first: other entries (remembered sign-ins, rate-limit state, a guesser's
own one-off counters) never push a live counter out, so a cull never lifts a throttle.
"""

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache as DjangoFileBasedCache

LOCK_NAME = "writers.lock"
# Live counters are at most four files per failing account and address within a window;
# expired ones are swept at each cull.
SIGNIN_MAX_ENTRIES = 20_000


class FileBasedCache(DjangoFileBasedCache):
    """Django's file cache with `add` and `incr` atomic across processes and threads."""

    @contextmanager
    def _exclusive(self):
        self._createdir()  # the folder may be deleted at any time, as Django allows
        with open(os.path.join(self._dir, LOCK_NAME), "ab") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with self._exclusive():
            return super().add(key, value, timeout, version)

    def incr(self, key, delta=1, version=None):
        with self._exclusive():
            return super().incr(key, delta, version)


class ExpiredFirstFileCache(FileBasedCache):
    """A file cache whose cull removes expired entries first, and live ones (at random,
    as Django's) only while the live ones alone are still over MAX_ENTRIES."""

    def _cull(self):
        files = self._list_cache_files()
        if len(files) < self._max_entries:
            return
        live = [name for name in files if not self._expired(name)]
        if len(live) >= self._max_entries:
            super()._cull()

    def _expired(self, name: str) -> bool:
        try:
            with open(name, "rb") as file:
                return self._is_expired(file)  # deletes it when expired
        except FileNotFoundError:
            return True


def file_caches(data_dir: Path) -> dict:
    return {
        "default": {
            "BACKEND": "config.file_cache.FileBasedCache",
            "LOCATION": str(data_dir / "cache"),
        },
        "signin": {
            "BACKEND": "config.file_cache.ExpiredFirstFileCache",
            "LOCATION": str(data_dir / "cache-signin"),
            "OPTIONS": {"MAX_ENTRIES": SIGNIN_MAX_ENTRIES},
        },
    }
