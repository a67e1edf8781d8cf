"""OCI distribution: blob push/pull throughput and manifest GET latency, ours against the
CNCF Distribution registry (Debian `docker-registry`), and our web process's peak memory
during 1 GiB blob uploads.

Both servers run on loopback on the same machine; the numbers are as noisy as the machine.
"""

import contextlib
import hashlib
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import requests

from benchmarks.harness import backing_services, load, manage, print_table, run_django, web_server
from tests.services.debian import require
from tests.services.servers import free_port, wait_for_port

MIB = 1024 * 1024
BLOB_MIB = 100
ROUNDS = 7
BIG_MIB = 1024
ADMIN = ("admin", "bench-admin")
NAME = "bench/app"


@contextlib.contextmanager
def distribution_registry():
    """The CNCF registry on loopback with a throwaway filesystem store."""
    binary = require({"docker-registry": ("docker-registry", ())})["docker-registry"]
    with tempfile.TemporaryDirectory(prefix="cncf-registry-") as root:
        port = free_port()
        config = Path(root) / "config.yml"
        config.write_text(
            "version: 0.1\n"
            "log:\n  level: error\n  accesslog:\n    disabled: true\n"
            f"storage:\n  filesystem:\n    rootdirectory: {root}/data\n"
            "  delete:\n    enabled: true\n"
            f"http:\n  addr: 127.0.0.1:{port}\n"
        )
        log = Path(root) / "registry.log"
        process = subprocess.Popen(
            [binary, "serve", str(config)],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_for_port(port, process, log)
            yield f"http://127.0.0.1:{port}", [process.pid]
        finally:
            process.terminate()
            process.wait(timeout=30)


def blob_source(path: Path, size_mib: int) -> str:
    """A file of random bytes; its sha256 digest."""
    hasher = hashlib.sha256()
    with path.open("wb") as handle:
        for _ in range(size_mib):
            block = os.urandom(MIB)
            hasher.update(block)
            handle.write(block)
    return "sha256:" + hasher.hexdigest()


def push_blob(session: requests.Session, base: str, path: Path, digest: str) -> float:
    """Monolithic POST + PUT of the file (streamed from disk); seconds taken."""
    began = time.perf_counter()
    started = session.post(f"{base}/v2/{NAME}/blobs/uploads/")
    started.raise_for_status()
    location = started.headers["Location"]
    if location.startswith("/"):
        location = base + location
    with path.open("rb") as handle:
        done = session.put(
            location,
            params={"digest": digest},
            data=handle,
            headers={"Content-Type": "application/octet-stream"},
        )
    if done.status_code != 201:
        raise RuntimeError(f"blob push failed: {done.status_code} {done.text[:300]}")
    return time.perf_counter() - began


def pull_blob(session: requests.Session, base: str, digest: str, size: int) -> float:
    began = time.perf_counter()
    received = 0
    with session.get(f"{base}/v2/{NAME}/blobs/{digest}", stream=True) as response:
        response.raise_for_status()
        for chunk in response.iter_content(MIB):
            received += len(chunk)
    if received != size:
        raise RuntimeError(f"pulled {received} bytes of {size}")
    return time.perf_counter() - began


def push_small_image(session: requests.Session, base: str) -> str:
    """A config + one layer + manifest tagged `v1`; the manifest's digest."""
    config = json.dumps({"architecture": "amd64", "os": "linux"}).encode()
    layer = os.urandom(4096)
    descriptors = []
    for data, media_type in (
        (config, "application/vnd.oci.image.config.v1+json"),
        (layer, "application/vnd.oci.image.layer.v1.tar"),
    ):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        # POST then PUT: the CNCF registry 2.8 has no single-request (POST ?digest=) upload.
        location = session.post(f"{base}/v2/{NAME}/blobs/uploads/").headers["Location"]
        if location.startswith("/"):
            location = base + location
        session.put(location, params={"digest": digest}, data=data).raise_for_status()
        descriptors.append({"mediaType": media_type, "digest": digest, "size": len(data)})
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": descriptors[0],
            "layers": descriptors[1:],
        }
    ).encode()
    response = session.put(
        f"{base}/v2/{NAME}/manifests/v1",
        data=manifest,
        headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"},
    )
    if response.status_code != 201:
        raise RuntimeError(f"manifest push failed: {response.status_code} {response.text[:300]}")
    return response.headers["Docker-Content-Digest"]


class Target:
    """One server under test: its URL and a session with its credentials."""

    def __init__(self, label: str, base: str, auth, pids: list[int]):
        self.label = label
        self.base = base
        self.pids = pids
        self.push_cpu: list[float] = []
        self.auth = auth
        self.session = requests.Session()
        self.session.auth = auth
        self.pushes: list[float] = []
        self.pulls: list[float] = []

    def manifest_headers(self) -> dict:
        headers = {"Accept": "application/vnd.oci.image.manifest.v1+json"}
        if self.auth:
            # What docker, skopeo and oras send: a Bearer token from the token service.
            issued = requests.get(
                f"{self.base}/service/token",
                params={"service": "harbor-registry", "scope": f"repository:{NAME}:pull"},
                auth=self.auth,
            )
            headers["Authorization"] = f"Bearer {issued.json()['token']}"
        return headers


def measure(targets: list[Target], source: Path, digest: str) -> list[dict]:
    """Rounds alternate between the servers so that the machine's load hits both alike.

    Each round's ours/theirs ratio compares two transfers made seconds apart; the table's
    ratio row is the median of those per-round ratios, which a load spike in one round
    cannot drag far.
    """
    size = source.stat().st_size
    for target in targets:
        # Untimed: the first transfer opens connections and fills caches.
        push_blob(target.session, target.base, source, digest)
        pull_blob(target.session, target.base, digest, size)
    for _ in range(ROUNDS):
        for target in targets:
            cpu = cpu_seconds(target.pids)
            target.pushes.append(push_blob(target.session, target.base, source, digest))
            target.push_cpu.append(cpu_seconds(target.pids) - cpu)
        for target in targets:
            target.pulls.append(pull_blob(target.session, target.base, digest, size))
    rows = []
    for target in targets:
        push_small_image(target.session, target.base)
        manifest = load(
            f"{target.base}/v2/{NAME}/manifests/v1", 400, 4, headers=target.manifest_headers()
        )
        rows.append(
            {
                "server": target.label,
                "push MiB/s best": BLOB_MIB / min(target.pushes),
                "push MiB/s median": BLOB_MIB / statistics.median(target.pushes),
                "push server CPU s": statistics.median(target.push_cpu),
                "pull MiB/s best": BLOB_MIB / min(target.pulls),
                "pull MiB/s median": BLOB_MIB / statistics.median(target.pulls),
                "manifest rps": manifest["rps"],
                "manifest p50": manifest["p50"],
                "manifest p95": manifest["p95"],
            }
        )
    ours, theirs = targets
    ratio = {"server": "ours / theirs"}
    for key in rows[0]:
        if key != "server":
            ratio[key] = f"{rows[0][key] / rows[1][key]:.2f}"
    # Throughput ratios per round (theirs' seconds over ours'), then their median.
    for key, mine, others in (
        ("push MiB/s median", ours.pushes, theirs.pushes),
        ("pull MiB/s median", ours.pulls, theirs.pulls),
    ):
        paired = sorted(other / own for own, other in zip(mine, others, strict=True))
        ratio[key] = f"{statistics.median(paired):.2f} ({paired[0]:.2f}-{paired[-1]:.2f})"
    rows.append(ratio)
    return rows


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of the processes so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def server_pids(base: str) -> list[int]:
    """gunicorn master and worker processes of the server at `base`."""
    return worker_pids(int(base.rsplit(":", 1)[1]))


def worker_pids(master_port: int) -> list[int]:
    """gunicorn processes (master and workers) of the server listening on the port."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"gunicorn" in command and f"PORT={master_port}".encode() in environ:
            pids.append(int(entry.name))
    return pids


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


def big_upload_memory(base: str) -> list[dict]:
    """1 GiB pushed as 64 MiB chunked-encoding PATCHes, then as one PUT with Content-Length
    (the two ways the body is read); RSS of the web processes sampled during each."""
    pids = server_pids(base)
    block = os.urandom(MIB)
    hasher = hashlib.sha256()
    for _ in range(BIG_MIB):
        hasher.update(block)
    digest = "sha256:" + hasher.hexdigest()
    session = requests.Session()
    session.auth = ADMIN
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
        location = base + session.post(f"{base}/v2/{NAME}/blobs/uploads/").headers["Location"]
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


def run() -> None:
    with backing_services() as env, tempfile.TemporaryDirectory(prefix="bench-oci-") as scratch:
        manage(env, "migrate", "--noinput")
        manage(env, "ensureadmin")
        run_django(
            env,
            "from django.contrib.auth import get_user_model\n"
            "from registry.services import projects\n"
            "admin = get_user_model().objects.get(username='admin')\n"
            "projects.create_project(admin, 'bench', as_admin=True)\n",
        )
        source = Path(scratch) / "blob"
        digest = blob_source(source, BLOB_MIB)
        load_before = os.getloadavg()
        with (
            web_server({**env, "WEB_THREADS": "4"}, workers=2) as ours,
            distribution_registry() as (theirs, their_pids),
        ):
            rows = measure(
                [
                    Target("ours (gunicorn 2x4, Bearer token)", ours, ADMIN, server_pids(ours)),
                    Target("CNCF distribution 2.8 (no auth)", theirs, None, their_pids),
                ],
                source,
                digest,
            )
            memory = big_upload_memory(ours)
        print(f"load average before: {load_before}, after: {os.getloadavg()}")
        print_table(
            f"OCI blobs ({BLOB_MIB} MiB, {ROUNDS} rounds; ratio row: median of per-round"
            " ratios, range in brackets) and manifest GET (ms)",
            rows,
        )
        print_table("web process memory during a 1 GiB upload (per process)", memory)
