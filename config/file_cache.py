"""The embedded default's cache: Django's file cache with `add` and `incr` atomic across
the processes and threads that share its folder.

Django's are a read and then a write, so concurrent callers overwrote each other: failed
sign-ins counted at once were mostly lost (8 threads x 25 failures counted 39; through
gunicorn, 16 clients got 32 password checks where the limit is 10). Both run here under
an exclusive flock of one lock file in the folder (not an entry: `clear` and culling,
which list entries by their suffix, leave it alone). Redis's are atomic already.
"""

import fcntl
import os
from contextlib import contextmanager

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache as DjangoFileBasedCache

LOCK_NAME = "writers.lock"


class FileBasedCache(DjangoFileBasedCache):
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
