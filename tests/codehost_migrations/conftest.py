"""Fixtures for migrations and mirrors: real git repositories as remotes, a signed-in
API client, and a clean git root (shared with the worker process) for every test."""

import base64
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from tests.codehost.factories import PASSWORD, UserFactory
from tests.services.debian import require

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


@pytest.fixture(scope="session", autouse=True)
def git_binary():
    return require({"git": ("git", ())})["git"]


def git(*args: str, cwd: Path | None = None) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


class SourceRepo:
    """A working repository that tests commit to and migrate from."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True)
        git("init", "--quiet", "--initial-branch=main", str(path))

    def commit(self, name: str = "file.txt", content: str = "content", branch: str = "main"):
        git("checkout", "--quiet", "-B", branch, cwd=self.path)
        (self.path / name).write_text(content)
        git("add", name, cwd=self.path)
        git("commit", "--quiet", "-m", f"change {name}", cwd=self.path)
        return git("rev-parse", "HEAD", cwd=self.path)

    def refs(self) -> dict[str, str]:
        output = git(
            "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", cwd=self.path
        )
        return dict(line.split(" ", 1) for line in output.splitlines())


@pytest.fixture
def source_repo(tmp_path) -> SourceRepo:
    repo = SourceRepo(tmp_path / "source")
    repo.commit("README.md", "# hello\n")
    return repo


@pytest.fixture(autouse=True)
def clean_git_root():
    root = Path(settings.CODEHOST_GIT_ROOT)
    shutil.rmtree(root, ignore_errors=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def local_imports(settings):
    settings.CODEHOST_IMPORT_LOCAL_PATHS = True
    settings.CODEHOST_MIGRATION_WAIT_SECONDS = 60
    return settings


def basic_client(username: str, password: str = PASSWORD) -> APIClient:
    client = APIClient()
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {token}")
    return client


@pytest.fixture
def admin_client(admin_user) -> APIClient:
    return basic_client(admin_user.username, "password")


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def alice_client(alice) -> APIClient:
    return basic_client("alice")


def files_under(root: Path) -> list[Path]:
    # The worker may remove a directory while it is being listed: list it again.
    while True:
        try:
            return sorted(root.rglob("*")) if root.exists() else []
        except FileNotFoundError:
            continue
