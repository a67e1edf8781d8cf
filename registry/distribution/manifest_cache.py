"""Manifest bytes by digest, in process memory.

The bytes at a digest never change, so a copy is never stale; who may read which digest is
decided before (`manifests.resolve` finds it in the repository, the caller's access is
checked), never by this cache. Bounded by total size, least recently used out first.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable

MAX_BYTES = 32 * 1024 * 1024

_entries: OrderedDict[str, bytes] = OrderedDict()
_held = 0
_lock = threading.Lock()


def get(digest: str, read: Callable[[str], bytes]) -> bytes:
    """The bytes at `digest`, from memory or from `read(digest)` (then kept)."""
    global _held
    with _lock:
        found = _entries.get(digest)
        if found is not None:
            _entries.move_to_end(digest)
            return found
    content = read(digest)
    if len(content) > MAX_BYTES:
        return content
    with _lock:
        if digest not in _entries:
            _entries[digest] = content
            _held += len(content)
            while _held > MAX_BYTES:
                _, dropped = _entries.popitem(last=False)
                _held -= len(dropped)
    return content
