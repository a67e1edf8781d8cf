"""OCI distribution, ours against the CNCF Distribution registry (Debian `docker-registry`):
the pull path's goals (manifest GET/HEAD by tag and by digest, blob HEAD: p50/p95; blob pull
throughput at 1 and 8 clients), each printed beside its target and the peer's figure from
the same run; blob push throughput; our web process's peak memory during 1 GiB uploads.

Both servers run on loopback on the same machine with their data on a RAM disk; the
numbers are as noisy as the machine, which is why rounds interleave the two servers.
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

from benchmarks.harness import backing_services, manage, print_table, run_django, web_server
from benchmarks.oci_memory import big_upload_memory
from tests.services.debian import require
from tests.services.servers import free_port, wait_for_port

MIB = 1024 * 1024
BLOB_MIB = 100
ROUNDS = 7
ADMIN = ("admin", "bench-admin")
NAME = "bench/app"
LATENCY_ROUNDS = 10
PER_ROUND = 40
PULL_CLIENTS = (1, 8)
MANIFEST_ACCEPT = "application/vnd.oci.image.manifest.v1+json"
RAM_DISK = "/dev/shm" if os.path.isdir("/dev/shm") else None
# `make run` with no settings but DATA_DIR and the admin's password (SQLite, the file cache).
EMBEDDED_DEFAULT = {
    "DATABASE_URL": "",
    "REDIS_URL": "",
    "CELERY_BROKER_URL": "",
    "ADMIN_PASSWORD": ADMIN[1],
}


@contextlib.contextmanager
def distribution_registry(parent: str | None = None):
    """The CNCF registry on loopback with a throwaway filesystem store (under `parent`)."""
    binary = require({"docker-registry": ("docker-registry", ())})["docker-registry"]
    with tempfile.TemporaryDirectory(prefix="cncf-registry-", dir=parent) as root:
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
    """One server under test: its URL, credentials for pushes, headers for pulls."""

    def __init__(self, label: str, base: str, auth, pids: list[int]):
        self.label = label
        self.base = base
        self.pids = pids
        self.auth = auth
        self.session = requests.Session()
        self.session.auth = auth
        self.pushes: list[float] = []
        self.push_cpu: list[float] = []
        self.pull_headers: dict = {}
        self.manifest_digest = ""

    def sign_in_for_pulls(self) -> None:
        """What docker, skopeo and oras do: one Bearer token from the token service, sent
        on every pull request (the CNCF registry runs without auth: nothing to send)."""
        if not self.auth:
            return
        issued = requests.get(
            f"{self.base}/service/token",
            params={"service": "harbor-registry", "scope": f"repository:{NAME}:pull"},
            auth=self.auth,
        )
        issued.raise_for_status()
        self.pull_headers = {"Authorization": f"Bearer {issued.json()['token']}"}


def measure_push(targets: list[Target], source: Path, digest: str) -> list[dict]:
    """Blob push throughput, rounds alternating between the servers; the ratio row is the
    median of per-round ratios (two transfers seconds apart), which a load spike in one
    round cannot drag far."""
    for target in targets:
        push_blob(target.session, target.base, source, digest)  # untimed warm-up
    for _ in range(ROUNDS):
        for target in targets:
            cpu = cpu_seconds(target.pids)
            target.pushes.append(push_blob(target.session, target.base, source, digest))
            target.push_cpu.append(cpu_seconds(target.pids) - cpu)
    rows = [
        {
            "server": target.label,
            "push MiB/s best": BLOB_MIB / min(target.pushes),
            "push MiB/s median": BLOB_MIB / statistics.median(target.pushes),
            "push server CPU s": statistics.median(target.push_cpu),
        }
        for target in targets
    ]
    ours, theirs = targets
    paired = sorted(other / own for own, other in zip(ours.pushes, theirs.pushes, strict=True))
    cpu = statistics.median(ours.push_cpu) / statistics.median(theirs.push_cpu)
    rows.append(
        {
            "server": "ours / theirs",
            "push MiB/s best": f"{min(theirs.pushes) / min(ours.pushes):.2f}",
            "push MiB/s median": f"{statistics.median(paired):.2f} "
            f"({paired[0]:.2f}-{paired[-1]:.2f})",
            "push server CPU s": f"{cpu:.2f}",
        }
    )
    return rows


def pull_requests(manifest_digest: str, blob_digest: str) -> list[tuple[str, str, str]]:
    """The pull path's requests: (goal, method, path)."""
    manifest = f"/v2/{NAME}/manifests"
    return [
        ("manifest GET by tag", "GET", f"{manifest}/v1"),
        ("manifest GET by digest", "GET", f"{manifest}/{manifest_digest}"),
        ("manifest HEAD by tag", "HEAD", f"{manifest}/v1"),
        ("manifest HEAD by digest", "HEAD", f"{manifest}/{manifest_digest}"),
        ("blob HEAD", "HEAD", f"/v2/{NAME}/blobs/{blob_digest}"),
    ]


def timed_requests(target: Target, method: str, path: str, count: int) -> list[float]:
    """`count` requests one after another on one kept-alive connection; ms each."""
    session = requests.Session()
    headers = {"Accept": MANIFEST_ACCEPT, **target.pull_headers}
    session.request(method, target.base + path, headers=headers).raise_for_status()
    taken = []
    for _ in range(count):
        began = time.perf_counter()
        response = session.request(method, target.base + path, headers=headers)
        taken.append((time.perf_counter() - began) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{target.label} {method} {path}: {response.status_code}")
    session.close()
    return taken


def concurrent_pulls(target: Target, digest: str, size: int, clients: int) -> float:
    """`clients` pulls of the blob at once; their aggregate MiB/s."""
    sessions = [requests.Session() for _ in range(clients)]
    for session in sessions:
        session.headers.update(target.pull_headers)
    threads = [
        threading.Thread(target=pull_blob, args=(session, target.base, digest, size))
        for session in sessions
    ]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    for session in sessions:
        session.close()
    return clients * size / MIB / wall


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(int(len(ordered) * fraction) - 1, 0)]


def measure_pull(targets: list[Target], digest: str, size: int) -> list[dict]:
    """The pull path's goals, each beside its target (the peer's figure) and the peer's
    figure, from one run whose rounds interleave the servers (alternating which goes first)
    so the machine's load hits both alike."""
    latency_goals = [goal for goal, _, _ in pull_requests("", "")]
    latency = {(t.label, goal): [] for t in targets for goal in latency_goals}
    throughput = {(t.label, n): [] for t in targets for n in PULL_CLIENTS}
    for round_number in range(LATENCY_ROUNDS):
        order = targets if round_number % 2 == 0 else targets[::-1]
        for position, goal in enumerate(latency_goals):
            for target in order:
                _, method, path = pull_requests(target.manifest_digest, digest)[position]
                latency[target.label, goal] += timed_requests(target, method, path, PER_ROUND)
    for round_number in range(ROUNDS):
        order = targets if round_number % 2 == 0 else targets[::-1]
        for clients in PULL_CLIENTS:
            for target in order:
                throughput[target.label, clients].append(
                    concurrent_pulls(target, digest, size, clients)
                )
    ours, theirs = (target.label for target in targets)
    rows = []
    for goal in latency_goals:
        for name, fraction in (("p50", 0.5), ("p95", 0.95)):
            mine = percentile(latency[ours, goal], fraction)
            peer = percentile(latency[theirs, goal], fraction)
            rows.append(goal_row(f"{goal} {name} ms", mine, f"<= {peer:.2f}", peer, mine <= peer))
    for clients in PULL_CLIENTS:
        mine = statistics.median(throughput[ours, clients])
        peer = statistics.median(throughput[theirs, clients])
        label = f"blob pull MiB/s, {clients} client{'s' if clients > 1 else ''} (median)"
        rows.append(goal_row(label, mine, f">= {peer:.0f}", peer, mine >= peer))
    return rows


def goal_row(goal: str, mine: float, target: str, peer: float, met: bool) -> dict:
    digits = 2 if mine < 100 else 0
    return {
        "goal": goal,
        "ours": f"{mine:.{digits}f}",
        "target": target,
        "peer (CNCF 2.8, same run)": f"{peer:.{digits}f}",
        "met": "yes" if met else "NO",
    }


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of the processes so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def server_pids(base: str, workers: int = 3) -> list[int]:
    """gunicorn master and worker processes of the server at `base`. The master answers
    before it has forked its workers (it loads the app first): wait for them."""
    deadline = time.monotonic() + 60
    while True:
        pids = worker_pids(int(base.rsplit(":", 1)[1]))
        if len(pids) > workers or time.monotonic() > deadline:
            return pids
        time.sleep(0.1)


def worker_pids(master_port: int) -> list[int]:
    """gunicorn processes (master and workers) of the server listening on the port: those
    holding its listening socket (their titles and cleared environment name no port)."""
    inodes = {
        fields[9]
        for fields in (line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:])
        if int(fields[1].rsplit(":", 1)[1], 16) == master_port and fields[3] == "0A"
    }
    listening = {f"socket:[{inode}]" for inode in inodes}
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and listening & open_files(entry)
    ]


def open_files(process: Path) -> set[str]:
    """What the process's descriptors point to (those still open while read)."""
    found = set()
    with contextlib.suppress(OSError):
        for fd in (process / "fd").iterdir():
            with contextlib.suppress(OSError):
                found.add(os.readlink(fd))
    return found


@contextlib.contextmanager
def our_setup():
    """`make run`'s embedded default (SQLite, file cache) with its data on a RAM disk, as
    the CNCF registry's store; BENCH_OCI_BACKEND=postgres runs on PostgreSQL and Redis."""
    if os.environ.get("BENCH_OCI_BACKEND") == "postgres":
        with backing_services() as env:
            yield env, "PostgreSQL"
        return
    with tempfile.TemporaryDirectory(prefix="bench-oci-", dir=RAM_DISK) as data_dir:
        yield {**EMBEDDED_DEFAULT, "DATA_DIR": data_dir}, "SQLite, RAM disk"


def run() -> None:
    with our_setup() as (env, backend), tempfile.TemporaryDirectory(dir=RAM_DISK) as scratch:
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
        size = source.stat().st_size
        load_before = os.getloadavg()
        with (
            web_server(env) as ours,
            distribution_registry(scratch) as (theirs, their_pids),
        ):
            targets = [
                Target("ours", ours, ADMIN, server_pids(ours)),
                Target("CNCF distribution 2.8", theirs, None, their_pids),
            ]
            pushes = measure_push(targets, source, digest)
            for target in targets:
                target.manifest_digest = push_small_image(target.session, target.base)
                target.sign_in_for_pulls()
            goals = measure_pull(targets, digest, size)
            memory = big_upload_memory(ours, server_pids(ours), ADMIN, NAME)
        print(f"load average before: {load_before}, after: {os.getloadavg()}")
        print_table(
            f"OCI pull path: ours ({backend}, gunicorn as `make run`, Bearer token as real"
            " pulls send) beside the CNCF registry (no auth; filesystem store on the RAM"
            f" disk). Latency: one client, {LATENCY_ROUNDS} interleaved rounds x"
            f" {PER_ROUND} requests; blob pulls: {ROUNDS} interleaved rounds of"
            f" {BLOB_MIB} MiB",
            goals,
        )
        print_table(
            f"OCI blob push ({BLOB_MIB} MiB, {ROUNDS} interleaved rounds; ratio row: median of"
            " per-round ratios, range in brackets)",
            pushes,
        )
        print_table("web process memory during a 1 GiB upload (per process)", memory)
