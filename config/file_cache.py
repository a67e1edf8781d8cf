"""The embedded default's caches (no REDIS_URL): files under DATA_DIR, shared by the web,
worker and beat processes.

Django's file cache culls a third of its entries at random once it holds MAX_ENTRIES
(300 by default), and leaves an expired entry on disk until something reads it. The
failed sign-in counters (config.signin_throttle) are in a cache of their own, culled
expired entries first: other entries (remembered sign-ins, rate-limit state, a guesser's
own one-off counters) never push a live counter out, so a cull never lifts a throttle.
"""

from pathlib import Path

from django.core.cache.backends.filebased import FileBasedCache

# Live counters are at most four files per failing account and address within a window;
# expired ones are swept at each cull.
SIGNIN_MAX_ENTRIES = 20_000


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
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(data_dir / "cache"),
        },
        "signin": {
            "BACKEND": "config.file_cache.ExpiredFirstFileCache",
            "LOCATION": str(data_dir / "cache-signin"),
            "OPTIONS": {"MAX_ENTRIES": SIGNIN_MAX_ENTRIES},
        },
    }
