"""Migrations whose service is `github`: the GitHub API is asked about the repository first,
as Gitea's downloader does, and its rate-limit and two-factor answers are errors of their
own (rule 7). GitHub itself cannot be reached from the tests, so a loopback stand-in
answers the API and serves the repository over git's dumb HTTP protocol (static files)."""

import base64
import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codehost import github_api
from codehost.models import MigrationTask, Repository, ServiceType
from tests.codehost_migrations.conftest import files_under, git

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

URL = "/api/v1/repos/migrate"
SECRET = "gh-Pa55word-xyz"


class FakeGitHub(SimpleHTTPRequestHandler):
    """/api/v3/repos/<owner>/<repo> answers what the test set; anything else is a file."""

    answer: dict
    seen: list

    def do_GET(self):
        self.seen.append((self.path, self.headers.get("Authorization", "")))
        if not self.path.startswith("/api/v3/"):
            return super().do_GET()
        status, headers, body = self.answer["status"], self.answer["headers"], self.answer["body"]
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        payload = json.dumps(body).encode()
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def github(tmp_path, source_repo, settings):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    served = tmp_path / "served"
    served.mkdir()
    bare = served / "octo" / "hello.git"
    git("clone", "--bare", "--quiet", str(source_repo.path), str(bare))
    git("update-server-info", cwd=bare)
    answer = {"status": 200, "headers": {}, "body": {"full_name": "octo/hello"}}
    seen: list = []
    handler = type("Handler", (FakeGitHub,), {"answer": answer, "seen": seen})
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(served))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.answer, server.seen = answer, seen
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    server.shutdown()
    server.server_close()


def migrate(client, github, **extra):
    body = {
        "clone_addr": f"{github.base}/octo/hello.git",
        "repo_name": "hello",
        "service": "github",
        "auth_username": "octocat",
        "auth_password": SECRET,
        **extra,
    }
    return client.post(URL, body, format="json")


def test_the_api_is_asked_with_the_credentials_then_git_migrates(
    celery_worker, admin_client, github, source_repo, clean_git_root
):
    response = migrate(admin_client, github)
    assert response.status_code == 201, response.content
    assert SECRET not in response.content.decode()
    login = base64.b64encode(f"octocat:{SECRET}".encode()).decode()
    # The API first, then git (dumb HTTP: info/refs, then objects).
    assert github.seen[0] == ("/api/v3/repos/octo/hello", f"Basic {login}")
    assert github.seen[1][0].startswith("/octo/hello.git/info/refs")
    repo = Repository.objects.get(pk=response.json()["id"])
    assert repo.original_service_type == ServiceType.GITHUB
    copied = git(
        "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", cwd=repo_dir(repo)
    )
    assert dict(line.split(" ", 1) for line in copied.splitlines()) == source_repo.refs()


def repo_dir(repo: Repository):
    from codehost import git as codehost_git

    return codehost_git.repo_path(repo.owner.name, repo.name)


@pytest.mark.parametrize(
    ("status", "headers", "message"),
    [
        (403, {"X-RateLimit-Remaining": "0"}, github_api.RATE_LIMITED),
        (429, {"X-RateLimit-Remaining": "0"}, github_api.RATE_LIMITED),
        (401, {"X-GitHub-OTP": "required; app"}, github_api.TWO_FACTOR_REQUIRED),
    ],
)
def test_rate_limit_and_two_factor_answers_give_422_and_leave_nothing(
    celery_worker, admin_client, github, clean_git_root, status, headers, message
):
    github.answer.update(status=status, headers=headers, body={"message": "refused"})
    response = migrate(admin_client, github)
    assert response.status_code == 422, response.content
    assert response.json()["message"] == message
    assert not Repository.objects.exists()
    assert MigrationTask.objects.get().status == MigrationTask.Status.FAILED
    assert files_under(clean_git_root) in ([], [clean_git_root / ".migrating"])


def test_bad_credentials_are_an_authentication_failure(celery_worker, admin_client, github):
    github.answer.update(status=401, body={"message": "Bad credentials"})
    response = migrate(admin_client, github)
    assert response.status_code == 422, response.content
    api = f"{github.base}/api/v3/repos/octo/hello"
    assert (
        response.json()["message"] == f"Authentication failed: GET {api}: 401 Bad credentials []."
    )
    assert SECRET not in response.content.decode()


def test_an_unknown_repository_is_a_500_and_git_is_not_run(celery_worker, admin_client, github):
    github.answer.update(status=404, body={"message": "Not Found"})
    response = migrate(admin_client, github)
    assert response.status_code == 500, response.content
    api = f"{github.base}/api/v3/repos/octo/hello"
    assert response.json()["message"] == f"GET {api}: 404 Not Found []"
    assert not Repository.objects.exists()
    assert [path for path, _ in github.seen] == ["/api/v3/repos/octo/hello"]


def test_the_api_address_of_github_and_of_an_enterprise_host():
    assert (
        github_api.repository_url("https://github.com/Octo/Hello.git")
        == "https://api.github.com/repos/Octo/Hello"
    )
    assert (
        github_api.repository_url("https://ghe.example.com:8443/octo/hello")
        == "https://ghe.example.com:8443/api/v3/repos/octo/hello"
    )
    assert github_api.repository_url("https://github.com/octo") is None
    assert github_api.repository_url("/srv/git/octo/hello.git") is None
