"""Blob push/pull throughput on S3 storage beside the filesystem's, in one run.

Two gunicorn servers on one database: one keeps blobs in DATA_DIR (the default), the other
in a bucket of an S3 server on loopback (moto's, as the tests use: a Python server, so
the S3 figures say what our side costs plus moto's own, not what AWS or Ceph would give).
A third row pulls through the pre-signed redirect (REGISTRY_S3_REDIRECT): the bytes then
come from the S3 server, not through the web process. The last row is boto3 straight to
the S3 server (a multipart upload in the same 8 MiB parts, a GET): the ceiling moto sets.
Rounds alternate between the servers so that the machine's load hits all alike. Last,
the S3 server's web processes' memory while 1 GiB is pushed (as bench_oci measures it).
"""

import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path

import requests

from benchmarks.bench_oci import ADMIN, NAME, blob_source, pull_blob, push_blob, server_pids
from benchmarks.harness import backing_services, manage, print_table, run_django, web_server
from benchmarks.oci_memory import PeakRss, big_upload_memory
from tests.services.s3 import S3Server, new_bucket, s3_client, s3_settings_env
from tests.services.servers import Services

BLOB_MIB = 100
ROUNDS = 5
# registry.distribution.s3.PART_SIZE (that module needs Django set up).
PART_SIZE = 8 * 1024 * 1024


@contextlib.contextmanager
def s3_server():
    services = Services()
    try:
        yield S3Server(services).ready()
    finally:
        services.stop()


def session() -> requests.Session:
    opened = requests.Session()
    opened.auth = ADMIN
    return opened


def direct_push(client, bucket: str, source: Path) -> float:
    from boto3.s3.transfer import TransferConfig

    began = time.perf_counter()
    with source.open("rb") as handle:
        client.upload_fileobj(
            handle,
            bucket,
            "direct",
            Config=TransferConfig(multipart_chunksize=PART_SIZE, max_concurrency=2),
        )
    return time.perf_counter() - began


def direct_pull(client, bucket: str) -> float:
    began = time.perf_counter()
    body = client.get_object(Bucket=bucket, Key="direct")["Body"]
    while body.read(1024 * 1024):
        pass
    return time.perf_counter() - began


def run() -> None:
    with (
        backing_services() as env,
        s3_server() as s3_env,
        tempfile.TemporaryDirectory(prefix="bench-s3-") as scratch,
    ):
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
        # The servers share the database, where a blob's row names its object in one
        # storage: the filesystem server pushes bytes of its own.
        fs_source = Path(scratch) / "fs-blob"
        fs_digest = blob_source(fs_source, BLOB_MIB)
        nodes = {}
        for node in ("s3", "redirect"):
            nodes[node] = Path(scratch) / node
            nodes[node].mkdir()
        on_s3 = {**env, **s3_settings_env(environ=s3_env), "DATA_DIR": str(nodes["s3"])}
        redirecting = {
            **on_s3,
            "REGISTRY_S3_REDIRECT": "true",
            "DATA_DIR": str(nodes["redirect"]),
        }
        server_env = {"WEB_THREADS": "4"}
        with (
            web_server({**env, **server_env}, workers=2) as filesystem,
            web_server({**on_s3, **server_env}, workers=2) as s3,
            web_server({**redirecting, **server_env}, workers=2) as redirect,
        ):
            targets = {
                "filesystem (DATA_DIR)": (filesystem, session(), fs_source, fs_digest),
                "S3 (moto on loopback)": (s3, session(), source, digest),
                "S3, pull by pre-signed redirect": (redirect, session(), source, digest),
            }
            direct = "boto3 straight to moto (the ceiling)"
            client = s3_client(s3_env)
            bucket = new_bucket(s3_env)
            pushes = {label: [] for label in [*targets, direct]}
            pulls = {label: [] for label in [*targets, direct]}
            for base, opened, pushed, pushed_digest in targets.values():
                # Untimed: the first transfer opens connections and fills caches.
                push_blob(opened, base, pushed, pushed_digest)
                pull_blob(opened, base, pushed_digest, size)
            sampling = contextlib.ExitStack()
            samplers = {
                label: sampling.enter_context(PeakRss(server_pids(base, workers=2)))
                for label, (base, *_) in targets.items()
            }
            for _ in range(ROUNDS):
                for label, (base, opened, pushed, pushed_digest) in targets.items():
                    pushes[label].append(push_blob(opened, base, pushed, pushed_digest))
                pushes[direct].append(direct_push(client, bucket, source))
                for label, (base, opened, _, pushed_digest) in targets.items():
                    pulls[label].append(pull_blob(opened, base, pushed_digest, size))
                pulls[direct].append(direct_pull(client, bucket))
            sampling.close()
            memory = big_upload_memory(s3, server_pids(s3, workers=2), ADMIN, NAME)
        rows = [
            {
                "storage": label,
                "push MiB/s best": BLOB_MIB / min(pushes[label]),
                "push MiB/s median": BLOB_MIB / statistics.median(pushes[label]),
                "pull MiB/s best": BLOB_MIB / min(pulls[label]),
                "pull MiB/s median": BLOB_MIB / statistics.median(pulls[label]),
                "web RSS peak MiB": samplers[label].peak / 1024 if label in samplers else "",
            }
            for label in pushes
        ]
        print(f"load average after: {os.getloadavg()}")
        print_table(
            f"blob push (POST + PUT) and pull, {BLOB_MIB} MiB, {ROUNDS} rounds, gunicorn 2x4 each",
            rows,
        )
        print_table("web process memory during a 1 GiB upload to S3 (per process)", memory)
