"""Our web processes' memory during 1 GiB blob uploads (part of `benchmarks oci`)."""

import hashlib
import os
import threading
import time
from pathlib import Path

import requests

MIB = 1024 * 1024
BIG_MIB = 1024


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class RepeatedBlock:
    """`count` copies of `block` as a body of known length (sent with Content-Length)."""

    def __init__(self, block: bytes, count: int):
        self.block = block
        self.left = len(block) * count
        self.total = self.left

    def __len__(self) -> int:
        return self.total

    def read(self, size: int = -1) -> bytes:
        offset = (self.total - self.left) % len(self.block)
        size = self.left if size < 0 else min(size, self.left)
        piece = self.block[offset : offset + size]
        self.left -= len(piece)
        return piece


class PeakRss:
    """Samples the processes' RSS every 50 ms while in use; `peak` in KiB."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        self.peak = max(rss_kib(pid) for pid in pids)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, *(rss_kib(pid) for pid in self.pids))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def big_upload_memory(base: str, pids: list[int], auth, name: str) -> list[dict]:
    """1 GiB pushed as 64 MiB chunked-encoding PATCHes, then as one PUT with Content-Length
    (the two ways the body is read); RSS of the web processes sampled during each."""
    block = os.urandom(MIB)
    hasher = hashlib.sha256()
    for _ in range(BIG_MIB):
        hasher.update(block)
    digest = "sha256:" + hasher.hexdigest()
    session = requests.Session()
    session.auth = auth
    chunk_mib = 64

    def chunked_patches(location: str) -> str:
        for index in range(BIG_MIB // chunk_mib):

            def body():
                for _ in range(chunk_mib):
                    yield block

            start = index * chunk_mib * MIB
            response = session.patch(
                location,
                data=body(),  # a generator: sent with Transfer-Encoding: chunked
                headers={"Content-Range": f"{start}-{start + chunk_mib * MIB - 1}"},
            )
            if response.status_code != 202:
                raise RuntimeError(f"PATCH failed: {response.status_code} {response.text[:300]}")
            location = base + response.headers["Location"]
        return session.put(location, params={"digest": digest})

    def one_put(location: str) -> requests.Response:
        return session.put(location, params={"digest": digest}, data=RepeatedBlock(block, BIG_MIB))

    rows = []
    for label, push in (
        (f"1 GiB chunked PATCH ({chunk_mib} MiB each)", chunked_patches),
        ("1 GiB PUT with Content-Length", one_put),
    ):
        before = max(rss_kib(pid) for pid in pids)
        location = base + session.post(f"{base}/v2/{name}/blobs/uploads/").headers["Location"]
        began = time.perf_counter()
        with PeakRss(pids) as sampled:
            done = push(location)
        seconds = time.perf_counter() - began
        if done.status_code != 201:
            raise RuntimeError(f"{label} failed: {done.status_code} {done.text[:300]}")
        rows.append(
            {
                "upload": label,
                "MiB/s": BIG_MIB / seconds,
                "RSS before MiB": before / 1024,
                "RSS peak sampled MiB": sampled.peak / 1024,
                "VmHWM MiB": max(rss_kib(pid, "VmHWM") for pid in pids) / 1024,
            }
        )
    return rows
