"""Several `celery -A config beat` processes: one sends the periodic tasks, the others
stand by and one of them takes over when it stops (a Redis key on PostgreSQL + Redis, a
flock on the embedded default)."""

import contextlib
import fcntl
import os
import signal
import subprocess
import sys

import redis

from config.beat import LEASE_KEY
from tests.conftest import ROOT, wait_until

SENT = "Sending due task tick"


class Beat:
    def __init__(self, name: str, directory, data_dir, lease_seconds: int):
        self.log_path = directory / f"beat-{name}.log"
        env = {
            **os.environ,
            "DATA_DIR": str(data_dir),
            "DJANGO_SETTINGS_MODULE": "tests.foundation.beat_settings",
            "BEAT_LEASE_SECONDS": str(lease_seconds),
        }
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "beat",
                    "--loglevel",
                    "INFO",
                    "--schedule",
                    str(directory / f"schedule-{name}"),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def log(self) -> str:
        return self.log_path.read_text()

    def sent(self) -> int:
        return self.log().count(SENT)

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
        self.process.wait(timeout=20)


@contextlib.contextmanager
def beat(name, tmp_path, data_dir, lease_seconds=3):
    started = Beat(name, tmp_path, data_dir, lease_seconds)
    try:
        yield started
    finally:
        # SIGTERM gives the lease back: no later beat of the session waits for it.
        started.stop(signal.SIGTERM)


def lease_holder_pid(data_dir) -> int | None:
    """The pid of the beat holding the lease (None when free), read as beat writes it."""
    if os.environ.get("REDIS_URL"):
        value = redis.Redis.from_url(os.environ["REDIS_URL"]).get(LEASE_KEY)
        return int(value.decode().split(":")[1]) if value else None
    with open(data_dir / "beat.lock", "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            return int(handle.read().split(":")[1])
        return None


def test_one_beat_sends_the_others_stand_by_and_take_over(tmp_path):
    data_dir = tmp_path / "data"
    with (
        beat("a", tmp_path, data_dir) as a,
        beat("b", tmp_path, data_dir) as b,
        beat("c", tmp_path, data_dir) as c,
    ):
        beats = [a, b, c]
        wait_until(lambda: any(x.sent() for x in beats), 120, message="a beat to send")
        active = next(x for x in beats if x.sent())
        standbys = [x for x in beats if x is not active]
        standing = lambda: all("standing by" in x.log() for x in standbys)  # noqa: E731
        wait_until(standing, 120, message="the standbys")
        assert lease_holder_pid(data_dir) == active.process.pid
        before = active.sent()
        wait_until(lambda: active.sent() >= before + 4, 30, message="the active beat")
        assert [x.sent() for x in standbys] == [0, 0]

        # Stopped cleanly, a beat gives the lease back on its way out (free, or already
        # taken by a standby), rather than leaving it to run out.
        active.stop(signal.SIGTERM)
        assert active.process.returncode == 0
        assert lease_holder_pid(data_dir) != active.process.pid
        wait_until(lambda: any(x.sent() for x in standbys), 30, message="a takeover")
        active = next(x for x in standbys if x.sent())
        (last,) = [x for x in standbys if x is not active]
        assert last.sent() == 0

        # Killed outright, the new holder never gives it back: the lease expires (3 s).
        active.stop(signal.SIGKILL)
        wait_until(lambda: last.sent() >= 2, 30, message="the last standby")
        assert "beat holds the lease" in last.log()
