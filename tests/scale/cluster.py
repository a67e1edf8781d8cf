"""Two complete nodes of one deployment, started as README "Running at scale" says.

Each node has its own local directory (`DATA_DIR`) and runs the two processes of the
recipe: gunicorn, and a Celery worker with beat inside. They share only a PostgreSQL
database, Redis, the object storage (a bucket of the test S3 server) and the git root:
a database and a Redis database of their own on the test servers, apart from the other
tests' (whose Celery worker must not take these nodes' tasks). `release()` is the
once-per-deploy step (migrate, admin account) run before any node starts.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis
import requests
from django.db import connections

from tests.conftest import ROOT, wait_until
from tests.services.s3 import s3_settings_env
from tests.services.servers import free_port

BIN = Path(sys.executable).parent
ADMIN = ("admin", "scale-admin-password")


def storage_env() -> dict:
    """Where every node keeps registry blobs, uploads in progress and store images (the
    one place the harness chooses its storage): a fresh bucket of the test S3 server. An
    upload's hold by a request on a node that died lapses after 3 s instead of 30."""
    return {**s3_settings_env(), "REGISTRY_S3_UPLOAD_LEASE_SECONDS": "3"}


def deployment_env(database_url: str, redis_url: str, shared: Path) -> dict:
    """The settings every process of every node gets (README: "Running at scale")."""
    git_root = shared / "git"
    git_root.mkdir(exist_ok=True)
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "SECRET_KEY": "scale-test-secret-key-shared-by-every-node",
        "CODEHOST_GIT_ROOT": str(git_root),
        **storage_env(),
        # Test stand-ins on loopback: webhook receivers, migration sources; quick retries.
        "STOREFRONT_WEBHOOK_ALLOW_INSECURE": "true",
        "STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS": "true",
        "STOREFRONT_WEBHOOK_RETRY_SCHEDULE": "1,1,1",
        "CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS": "true",
        "CODEHOST_MIGRATION_WAIT_SECONDS": "60",
    }


@contextlib.contextmanager
def deployment_stores():
    """(DATABASE_URL, REDIS_URL) of a new, empty database and Redis database on the test
    servers; dropped and flushed afterwards."""
    server = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    name = f"scale_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    redis_url = os.environ["REDIS_URL"].rsplit("/", 1)[0] + "/1"
    try:
        yield f"{server}/{name}", redis_url
    finally:
        redis.Redis.from_url(redis_url).flushdb()
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextlib.contextmanager
def default_database(database_url: str):
    """The test process's own connection reads and writes the deployment's database."""
    connection = connections["default"]
    connection.close()
    saved = connection.settings_dict["NAME"]
    connection.settings_dict["NAME"] = database_url.rsplit("/", 1)[1]
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["NAME"] = saved


def run(argv: list[str], env: dict, log: Path) -> None:
    with log.open("ab") as handle:
        result = subprocess.run(argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    if result.returncode:
        raise RuntimeError(f"{argv} failed:\n{log.read_text()[-3000:]}")


def release(env: dict, directory: Path) -> None:
    """Once per deploy, from one machine, before the new code serves: the schema, then
    the admin account."""
    data_dir = directory / "release"
    data_dir.mkdir()
    release_env = {**os.environ, **env, "DATA_DIR": str(data_dir)}
    release_env.update(ADMIN_USERNAME=ADMIN[0], ADMIN_PASSWORD=ADMIN[1])
    log = directory / "release.log"
    run([sys.executable, "manage.py", "migrate", "--no-input"], release_env, log)
    run([sys.executable, "manage.py", "ensureadmin"], release_env, log)


@dataclass
class Node:
    name: str
    directory: Path
    env: dict
    port: int = field(default_factory=free_port)
    processes: dict = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def commands(self) -> dict[str, list[str]]:
        """The node's two processes, as the README lists them: the worker runs beat too."""
        return {
            "web": [
                str(BIN / "gunicorn"),
                "-c",
                "python:config.gunicorn",
                "--bind",
                self.host,
                "config.wsgi",
            ],
            "worker": [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "--beat-thread",
                "--schedule",
                str(self.data_dir / "celerybeat-schedule"),
                "-Q",
                "default,git,webhooks",
                "-n",
                f"{self.name}@%h",
                "--concurrency",
                "2",
                "--without-gossip",
                "--without-mingle",
                "--loglevel",
                "INFO",
            ],
        }

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    def log_path(self, process: str) -> Path:
        return self.directory / f"{process}.log"

    def log(self, process: str) -> str:
        return self.log_path(process).read_text(errors="replace")

    def process_env(self) -> dict:
        return {
            **os.environ,
            **self.env,
            "DATA_DIR": str(self.data_dir),
            "EXTERNAL_URL": self.url,
            "WEB_CONCURRENCY": "1",
            "WEB_THREADS": "8",
        }

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        environment = self.process_env()
        for name, argv in self.commands().items():
            process = self.processes.get(name)
            if process is not None and process.poll() is None:
                continue
            with self.log_path(name).open("ab") as log:
                self.processes[name] = subprocess.Popen(
                    argv,
                    cwd=ROOT,
                    env=environment,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )

    def wait_ready(self, seconds: float = 120) -> None:
        def ready():
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise AssertionError(f"{self.name} {name} exited:\n{self.log(name)[-3000:]}")
            try:
                return requests.get(f"{self.url}/readyz", timeout=5).status_code == 200
            except requests.RequestException:
                return False

        wait_until(ready, seconds, interval=0.2, message=f"node {self.name} to be ready")
        wait_until(lambda: "ready." in self.log("worker"), seconds, message=f"{self.name}'s worker")

    def running(self) -> bool:
        return all(p.poll() is None for p in self.processes.values()) and len(
            self.processes
        ) == len(self.commands())

    def kill(self, sig=signal.SIGKILL) -> None:
        """The whole node goes: SIGKILL, as a machine lost, unless told otherwise."""
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, sig)
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)

    def worker_pids(self) -> set[int]:
        """The worker's main process and its pool children (whose pids tasks record)."""
        main = self.processes["worker"].pid
        children = Path(f"/proc/{main}/task/{main}/children").read_text().split()
        return {main, *map(int, children)}


def start_nodes(nodes: list[Node]) -> None:
    for node in nodes:
        node.start()
    started = time.monotonic()
    for node in nodes:
        node.wait_ready(max(10.0, 180 - (time.monotonic() - started)))
