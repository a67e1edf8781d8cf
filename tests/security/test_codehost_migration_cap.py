"""A migration holds its web thread until the worker is done: migrations in flight are
capped per user (429) and in all (503), with Retry-After, so slow remotes cannot take every
thread of the web server. Real concurrent requests against a live server, a real worker,
and a remote that stalls until the test lets it answer."""

import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from django.conf import settings as django_settings

from codehost.models import MigrationTask, Repository
from tests.conftest import wait_until
from tests.security.codehost_support import basic, owner

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


@pytest.fixture(autouse=True)
def codehost_caps(settings):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    settings.CODEHOST_MIGRATION_WAIT_SECONDS = 60
    root = Path(django_settings.CODEHOST_GIT_ROOT)
    shutil.rmtree(root, ignore_errors=True)
    yield settings
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def stalling_remote():
    """A git remote that answers nothing until `release` is set, then 404."""
    release = threading.Event()

    class Stall(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            release.wait(60)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Stall)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.release = release
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    release.set()
    server.shutdown()
    server.server_close()


def migrate(live_server, user: str, name: str, remote) -> requests.Response:
    return requests.post(
        f"{live_server.url}/api/v1/repos/migrate",
        json={"clone_addr": f"{remote.url}/{name}.git", "repo_name": name},
        headers={"Authorization": basic(user)},
        timeout=120,
    )


def in_flight() -> int:
    return MigrationTask.objects.filter(
        status__in=[MigrationTask.Status.QUEUED, MigrationTask.Status.RUNNING]
    ).count()


def assert_busy(response, status: int, message: str):
    assert response.status_code == status, response.content
    assert response.headers["Retry-After"] == "30"
    assert response.json() == {
        "message": message,
        "url": f"{django_settings.EXTERNAL_URL}/api/swagger",
    }


def test_one_user_gets_429_beyond_their_cap(celery_worker, live_server, stalling_remote,
                                            codehost_caps):  # fmt: skip
    codehost_caps.CODEHOST_MIGRATIONS_MAX_WAITING_PER_USER = 2
    owner("alice")
    owner("bob")
    with ThreadPoolExecutor(max_workers=5) as pool:
        # Four at once: exactly two get in, however the requests interleave.
        first = [pool.submit(migrate, live_server, "alice", f"r{n}", stalling_remote)
                 for n in range(4)]  # fmt: skip
        wait_until(lambda: sum(f.done() for f in first) == 2, 30, message="two refusals")
        refused = [future for future in first if future.done()]
        for future in refused:
            assert_busy(future.result(), 429, "too many migrations in progress for this user "
                                              "(at most 2), retry later")  # fmt: skip
        assert in_flight() == 2
        # Another user is not held back by alice's.
        bob = pool.submit(migrate, live_server, "bob", "b0", stalling_remote)
        wait_until(lambda: in_flight() == 3, 30, message="bob's migration to start")
        stalling_remote.release.set()
        waited = [future.result() for future in first if future not in refused]
        waited.append(bob.result())
    # The remote answered 404 in the end: a failed migration, and the slots are free again.
    answers = [(response.status_code, response.text) for response in waited]
    assert {status for status, _ in answers} == {422}, answers
    assert in_flight() == 0
    assert not Repository.objects.exists()


def test_everyone_gets_503_beyond_the_servers_cap(celery_worker, live_server, stalling_remote,
                                                  codehost_caps):  # fmt: skip
    codehost_caps.CODEHOST_MIGRATIONS_MAX_WAITING = 2
    for name in ("alice", "bob", "carol"):
        owner(name)
    with ThreadPoolExecutor(max_workers=3) as pool:
        waiting = [pool.submit(migrate, live_server, user, f"{user}-r", stalling_remote)
                   for user in ("alice", "bob")]  # fmt: skip
        wait_until(lambda: in_flight() == 2, 30, message="two migrations in flight")
        refused = migrate(live_server, "carol", "carol-r", stalling_remote)
        assert_busy(refused, 503, "too many migrations in progress on this server "
                                  "(at most 2), retry later")  # fmt: skip
        stalling_remote.release.set()
        assert {future.result().status_code for future in waiting} == {422}
    # Once they are over, the next one is accepted (and fails on the remote's 404).
    assert migrate(live_server, "carol", "carol-r", stalling_remote).status_code == 422
