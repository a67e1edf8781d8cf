"""Throwaway PostgreSQL, Redis, OpenLDAP and S3 (s3.py) servers on free loopback ports.

With TEST_BACKEND=sqlite only OpenLDAP and S3: the database is a SQLite file under DATA_DIR.

Each lives in its own temporary directory and is stopped (and the directory removed)
when the test session ends.
"""

import atexit
import datetime
import ipaddress
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.services.debian import require

LDAP_BASE_DN = "dc=example,dc=org"
LDAP_ADMIN_DN = f"cn=admin,{LDAP_BASE_DN}"
LDAP_ADMIN_PASSWORD = "admin-secret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, log: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited early:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{process.args[0]} did not listen on {port}:\n{log.read_text()[-3000:]}")


@dataclass
class Services:
    env: dict = field(default_factory=dict)
    processes: list = field(default_factory=list)
    directories: list = field(default_factory=list)

    def spawn(self, argv, log: Path, user: str | None = None) -> subprocess.Popen:
        if user:
            argv = ["runuser", "-u", user, "--", *argv]
        handle = log.open("wb")
        process = subprocess.Popen(
            argv, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes.clear()
        for directory in self.directories:
            shutil.rmtree(directory, ignore_errors=True)
        self.directories.clear()

    def tempdir(self, prefix: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=prefix))
        self.directories.append(path)
        return path


def _unprivileged_user() -> str | None:
    """PostgreSQL refuses to run as root: as root, run it as the postgres (or nobody) user."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as")


def start_postgres(services: Services) -> str:
    globs = ("/usr/lib/postgresql/*/bin/{}",)
    binaries = require(
        {
            name: ("postgresql", tuple(g.format(name) for g in globs))
            for name in ("initdb", "postgres")
        }
    )
    root = services.tempdir("test-postgres-")
    user = _unprivileged_user()
    if user:
        shutil.chown(root, user)
        root.chmod(0o700)
    data = root / "data"
    port = free_port()
    log = root / "postgres.log"
    init_argv = [
        binaries["initdb"],
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-sync",
    ]
    if user:
        init_argv = ["runuser", "-u", user, "--", *init_argv]
    result = subprocess.run(init_argv, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"initdb failed:\n{result.stdout}\n{result.stderr}")
    process = services.spawn(
        [
            binaries["postgres"],
            "-D",
            str(data),
            "-p",
            str(port),
            "-h",
            "127.0.0.1",
            "-k",
            str(root),
            "-c",
            "fsync=off",
            "-c",
            "synchronous_commit=off",
            "-c",
            "full_page_writes=off",
            "-c",
            "max_connections=300",
        ],
        log,
        user=user,
    )
    wait_for_port(port, process, log)
    import psycopg

    # The port opens before the server takes connections ("the database system is starting
    # up", seen on a loaded machine): retry for a while, then fail with the server's log.
    deadline = time.monotonic() + 60
    while True:
        try:
            with psycopg.connect(
                f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True
            ) as conn:
                conn.execute("CREATE DATABASE app")
            break
        except psycopg.OperationalError as error:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(
                    f"PostgreSQL did not take connections: {error}\n{log.read_text()}"
                ) from error
            time.sleep(0.2)
    return f"postgres://postgres@127.0.0.1:{port}/app"


def start_redis(services: Services) -> str:
    binaries = require({"redis-server": ("redis-server", ())})
    root = services.tempdir("test-redis-")
    port = free_port()
    log = root / "redis.log"
    process = services.spawn(
        [
            binaries["redis-server"],
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(root),
        ],
        log,
    )
    wait_for_port(port, process, log)
    return f"redis://127.0.0.1:{port}/0"


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def start_slapd(services: Services) -> dict:
    binaries = require(
        {
            "slapd": ("slapd", ("/usr/sbin/slapd",)),
            "ldapadd": ("ldap-utils", ()),
        }
    )
    root = services.tempdir("test-slapd-")
    (root / "db").mkdir()
    cert_file, key_file = self_signed_certificate(root)
    port, tls_port = free_port(), free_port()
    schema = "/etc/ldap/schema"
    config = root / "slapd.conf"
    config.write_text(
        "\n".join(
            [
                *(
                    f"include {schema}/{name}.schema"
                    for name in ("core", "cosine", "inetorgperson", "nis")
                ),
                f"pidfile {root}/slapd.pid",
                "modulepath /usr/lib/ldap",
                "moduleload back_mdb",
                "moduleload memberof",
                f"TLSCertificateFile {cert_file}",
                f"TLSCertificateKeyFile {key_file}",
                "database mdb",
                "maxsize 104857600",
                f'suffix "{LDAP_BASE_DN}"',
                f'rootdn "{LDAP_ADMIN_DN}"',
                f"rootpw {LDAP_ADMIN_PASSWORD}",
                f"directory {root}/db",
                "overlay memberof",
                "",
            ]
        )
    )
    log = root / "slapd.log"
    process = services.spawn(
        [
            binaries["slapd"],
            "-f",
            str(config),
            "-d",
            "0",
            "-h",
            f"ldap://127.0.0.1:{port}/ ldaps://127.0.0.1:{tls_port}/",
        ],
        log,
    )
    wait_for_port(port, process, log)
    seed = root / "base.ldif"
    seed.write_text(
        f"dn: {LDAP_BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\n"
        "dc: example\no: Example\n"
    )
    subprocess.run(
        [
            binaries["ldapadd"],
            "-x",
            "-H",
            f"ldap://127.0.0.1:{port}",
            "-D",
            LDAP_ADMIN_DN,
            "-w",
            LDAP_ADMIN_PASSWORD,
            "-f",
            str(seed),
        ],
        check=True,
        capture_output=True,
    )
    return {
        "TEST_LDAP_URL": f"ldap://127.0.0.1:{port}",
        "TEST_LDAPS_URL": f"ldaps://127.0.0.1:{tls_port}",
        "TEST_LDAP_CA_FILE": str(cert_file),
        "TEST_LDAP_BASE_DN": LDAP_BASE_DN,
        "TEST_LDAP_ADMIN_DN": LDAP_ADMIN_DN,
        "TEST_LDAP_ADMIN_PASSWORD": LDAP_ADMIN_PASSWORD,
    }


BACKENDS = ("postgres", "sqlite")
# Variables of the scaled setup that must not leak into the embedded default's run.
SCALED_SETUP_VARIABLES = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")


def selected_backend() -> str:
    """TEST_BACKEND: `postgres` (PostgreSQL + Redis, the default) or `sqlite` (the embedded
    default of `make run`: SQLite, the file cache and the filesystem broker)."""
    backend = os.environ.get("TEST_BACKEND", "").strip().lower() or "postgres"
    if backend not in BACKENDS:
        raise RuntimeError(f"TEST_BACKEND={backend!r}: expected one of {', '.join(BACKENDS)}")
    return backend


def start_services(backend: str = "postgres") -> Services:
    services = Services()
    atexit.register(services.stop)
    try:
        # Started first: its Python imports overlap the other servers' start.
        from tests.services.s3 import S3Server

        s3_server = S3Server(services)
        if backend == "postgres":
            database_url = start_postgres(services)
            redis_url = start_redis(services)
            scaled = {
                "DATABASE_URL": database_url,
                "REDIS_URL": redis_url,
                "CELERY_BROKER_URL": redis_url,
            }
        else:
            scaled = {}
            for name in SCALED_SETUP_VARIABLES:
                os.environ.pop(name, None)
        ldap_env = start_slapd(services)
        s3_env = s3_server.ready()
    except BaseException:
        services.stop()
        raise
    services.env = {
        **scaled,
        "TEST_BACKEND": backend,
        "DATA_DIR": str(services.tempdir("test-data-")),
        **ldap_env,
        **s3_env,
    }
    return services
