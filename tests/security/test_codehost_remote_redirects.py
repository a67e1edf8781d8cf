"""Migrations and mirror syncs reach only addresses the allow/block rules accept: git never
follows a redirect, every sync checks the origin again as its name resolves then, and git
connects to the very address that was checked (DNS rebinding).

The worker's rules (tests/conftest.py) allow loopback and refuse 127.0.0.2, which stands
for an internal address; the web side is given the same rules here."""

import shutil
import socket
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings

from codehost import git as codehost_git
from codehost import github_api, remote_address
from codehost.models import MigrationTask, Mirror, Repository
from codehost.services import mirrors
from tests.codehost.factories import PASSWORD
from tests.conftest import wait_until
from tests.security.codehost_support import api, basic, owner

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

REFUSED = "127.0.0.2"
DISALLOWED = "You can not import from disallowed hosts."
GIT_ENV = {
    "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent", "PATH": "/usr/local/bin:/usr/bin:/bin",
}  # fmt: skip


def run_git(*args, cwd=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


@pytest.fixture(autouse=True)
def codehost_rules(settings):
    """The worker's rules, on the web side too; the git root is the one the worker shares."""
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    settings.CODEHOST_MIGRATIONS_BLOCKED_DOMAINS = [REFUSED]
    settings.CODEHOST_MIGRATION_WAIT_SECONDS = 60
    root = Path(django_settings.CODEHOST_GIT_ROOT)
    shutil.rmtree(root, ignore_errors=True)
    yield settings
    shutil.rmtree(root, ignore_errors=True)


class Server:
    """A loopback HTTP server on `host` that records the paths it was asked for."""

    def __init__(self, host: str, handler):
        self.requests: list[str] = []
        record = self.requests

        class Recording(handler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                record.append(self.path)
                super().do_GET()

        self.httpd = ThreadingHTTPServer((host, 0), Recording)
        self.url = f"http://{host}:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def internal_repo(tmp_path):
    """A git repository served (dumb HTTP) on the refused address."""
    work = tmp_path / "internal-work"
    work.mkdir()
    run_git("init", "-q", "-b", "main", cwd=work)
    (work / "SECRET.txt").write_text("internal\n")
    run_git("add", "SECRET.txt", cwd=work)
    run_git("commit", "-q", "-m", "internal", cwd=work)
    served = tmp_path / "served"
    run_git("clone", "-q", "--bare", str(work), str(served / "repo.git"))
    run_git("update-server-info", cwd=served / "repo.git")

    class Files(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(served), **kwargs)

    server = Server(REFUSED, Files)
    yield server
    server.close()


@pytest.fixture
def redirector(internal_repo):
    """An allowed loopback address whose every answer is a redirect to the refused one."""

    class Redirect(SimpleHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", internal_repo.url + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = Server("127.0.0.1", Redirect)
    yield server
    server.close()


def test_a_migration_does_not_follow_a_redirect_to_a_refused_address(
    celery_worker, redirector, internal_repo
):
    owner("alice")
    response = api(basic("alice")).post(
        "/api/v1/repos/migrate",
        {"clone_addr": f"{redirector.url}/repo.git", "repo_name": "copy"},
        format="json",
    )
    assert response.status_code == 422, response.content
    assert response.json()["message"].startswith("Migration failed: fatal:")
    assert redirector.requests  # git asked the allowed address...
    assert internal_repo.requests == []  # ...and never the one it redirected to
    assert not Repository.objects.filter(name="copy").exists()
    assert MigrationTask.objects.get().status == MigrationTask.Status.FAILED


@pytest.fixture
def mirror(celery_worker, live_server, tmp_path):
    """alice/copy: a pull mirror of alice's private `upstream` served by the live server,
    and a checkout of upstream to push new commits from."""
    owner("alice")
    alice = api(basic("alice"))
    created = alice.post("/api/v1/user/repos", {"name": "upstream", "private": True,
                                                "auto_init": True}, format="json")  # fmt: skip
    assert created.status_code == 201, created.content
    upstream = f"{live_server.url}/alice/upstream.git"
    response = alice.post(
        "/api/v1/repos/migrate",
        {"clone_addr": upstream, "repo_name": "copy", "mirror": True,
         "auth_username": "alice", "auth_password": PASSWORD},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    checkout = tmp_path / "checkout"
    run_git("clone", "-q", upstream.replace("http://", f"http://alice:{PASSWORD}@"),
            str(checkout))  # fmt: skip
    return Mirror.objects.select_related("repo__owner").get(repo__name="copy"), checkout


def push_commit(checkout: Path, name: str) -> str:
    (checkout / name).write_text(name)
    run_git("add", name, cwd=checkout)
    run_git("commit", "-q", "-m", name, cwd=checkout)
    run_git("push", "-q", "origin", "HEAD:main", cwd=checkout)
    return run_git("rev-parse", "HEAD", cwd=checkout)


def sync_here(mirror: Mirror) -> Mirror:
    """One sync as the worker runs it, here, where the test's rules and resolver apply."""
    Mirror.objects.filter(pk=mirror.pk).update(sync_state=Mirror.SyncState.QUEUED)
    mirrors.run_sync(mirror.pk)
    return Mirror.objects.get(pk=mirror.pk)


def mirror_head(mirror: Mirror) -> str:
    path = codehost_git.repo_path("alice", mirror.repo.name)
    return codehost_git.refs(path)["refs/heads/main"]


def test_a_sync_checks_the_origin_again_and_stops_once_it_is_refused(mirror, codehost_rules):
    mirror, checkout = mirror
    before = mirror_head(mirror)
    head = push_commit(checkout, "later.txt")
    codehost_rules.CODEHOST_MIGRATIONS_BLOCKED_DOMAINS = [REFUSED, "127.0.0.1"]
    refused = sync_here(mirror)
    assert refused.last_error == DISALLOWED
    assert refused.sync_state == Mirror.SyncState.IDLE
    assert mirror_head(mirror) == before
    # The same sync goes through once the address is allowed again.
    codehost_rules.CODEHOST_MIGRATIONS_BLOCKED_DOMAINS = [REFUSED]
    assert sync_here(mirror).last_error == ""
    assert mirror_head(mirror) == head


def test_git_connects_to_the_address_checked_not_to_a_later_answer(
    mirror, monkeypatch, codehost_rules
):
    """A name that git cannot resolve by itself: the sync works only because git is held
    to the address the check resolved; when the name points at a refused address, no git
    runs at all."""
    mirror, checkout = mirror
    path = codehost_git.repo_path("alice", "copy")
    origin = run_git("config", "remote.origin.url", cwd=path)
    host = urlsplit(origin).hostname
    renamed = origin.replace(f"//{host}:", "//rebind.codehost.test:", 1)
    assert renamed != origin
    # The live server answers git's Host header for that name.
    codehost_rules.ALLOWED_HOSTS = [*codehost_rules.ALLOWED_HOSTS, "rebind.codehost.test"]
    run_git("config", "remote.origin.url", renamed, cwd=path)
    answers = {"rebind.codehost.test": "127.0.0.1"}
    real_resolve = remote_address.resolve

    def resolver(host):
        # The DNS of the name: whatever the test says it answers now.
        if host in answers:
            return real_resolve(answers[host])
        return real_resolve(host)

    monkeypatch.setattr(remote_address, "resolve", resolver)
    head = push_commit(checkout, "pinned.txt")
    synced = sync_here(mirror)
    assert synced.last_error == ""
    assert mirror_head(mirror) == head

    answers["rebind.codehost.test"] = REFUSED
    push_commit(checkout, "after-rebinding.txt")
    refused = sync_here(mirror)
    assert refused.last_error == DISALLOWED
    assert mirror_head(mirror) == head


def test_the_github_api_call_is_held_to_the_address_checked(monkeypatch):
    """A `github` migration asks the (Enterprise) API first: it too connects to the checked
    address only, and refuses a name that now resolves to a refused one."""
    seen = []

    class Api(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            seen.append((self.path, self.headers["Host"]))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

    server = Server("127.0.0.1", Api)
    port = server.url.rsplit(":", 1)[1]
    answers = {"ghe.codehost.test": "127.0.0.1"}
    real_resolve = remote_address.resolve
    monkeypatch.setattr(
        remote_address, "resolve", lambda host: real_resolve(answers.get(host, host))
    )
    address = f"http://ghe.codehost.test:{port}/acme/demo.git"
    try:
        github_api.check_repository(address, username="", password="", timeout=10)
        assert seen == [("/api/v3/repos/acme/demo", f"ghe.codehost.test:{port}")]
        answers["ghe.codehost.test"] = REFUSED
        with pytest.raises(github_api.GitHubRefused) as refused:
            github_api.check_repository(address, username="", password="", timeout=10)
        assert (str(refused.value), refused.value.code) == (DISALLOWED, "invalid")
        assert len(seen) == 1
    finally:
        server.close()


def test_the_worker_checks_a_migration_address_again(celery_worker, internal_repo, settings):
    """The request's check passed (the web side is told nothing is blocked here), the
    worker's, made when it clones, refuses: no request reaches the address."""
    settings.CODEHOST_MIGRATIONS_BLOCKED_DOMAINS = []
    owner("alice")
    response = api(basic("alice")).post(
        "/api/v1/repos/migrate",
        {"clone_addr": f"{internal_repo.url}/repo.git", "repo_name": "copy"},
        format="json",
    )
    assert response.status_code == 422, response.content
    assert response.json()["message"] == DISALLOWED
    assert internal_repo.requests == []
    assert not Repository.objects.filter(name="copy").exists()


@pytest.fixture
def git_daemon(tmp_path):
    """`git daemon` serving one repository with a commit on loopback (git:// remotes)."""
    served = tmp_path / "daemon"
    work = tmp_path / "daemon-work"
    work.mkdir()
    run_git("init", "-q", "-b", "main", cwd=work)
    (work / "a.txt").write_text("a\n")
    run_git("add", "a.txt", cwd=work)
    run_git("commit", "-q", "-m", "a", cwd=work)
    run_git("clone", "-q", "--bare", str(work), str(served / "x.git"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    daemon = subprocess.Popen(
        ["git", "daemon", "--export-all", f"--base-path={served}", "--listen=127.0.0.1",
         f"--port={port}", "--reuseaddr", str(served)],
        env=GIT_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip

    def listening():
        with socket.socket() as client:
            return client.connect_ex(("127.0.0.1", port)) == 0

    wait_until(listening, 10, message="git daemon")
    yield port, run_git("rev-parse", "HEAD", cwd=work)
    daemon.terminate()
    daemon.wait(timeout=10)


def test_a_git_protocol_remote_is_pinned_too(git_daemon, monkeypatch, tmp_path):
    port, head = git_daemon
    real_resolve = remote_address.resolve
    monkeypatch.setattr(remote_address, "resolve", lambda host: real_resolve(
        "127.0.0.1" if host == "daemon.codehost.test" else host))  # fmt: skip
    url = f"git://daemon.codehost.test:{port}/x.git"
    target = tmp_path / "clone.git"
    codehost_git.clone_mirror(url, target, timeout=30,
                              pinned=remote_address.pin_remote(url).config)  # fmt: skip
    assert codehost_git.refs(target)["refs/heads/main"] == head
    # The mirror keeps the name; the next fetch is pinned again.
    assert codehost_git.origin_url(target) == url
