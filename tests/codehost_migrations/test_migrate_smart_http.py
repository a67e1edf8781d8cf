"""Migrations and mirrors whose remote is our own git smart HTTP (a live server): private
repositories, stored credentials, tokens and the allow list."""

import subprocess

import pytest

from codehost import credentials
from codehost.models import MigrationTask, Mirror, Repository
from tests.codehost.factories import PASSWORD, UserFactory
from tests.codehost_migrations.conftest import GIT_ENV, basic_client, files_under, git
from tests.codehost_migrations.test_migrate_worker import worker_log
from tests.conftest import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

URL = "/api/v1/repos/migrate"


@pytest.fixture
def upstream(live_server, settings):
    """alice's private repository `upstream`, served by the live server."""
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    settings.CODEHOST_MIGRATION_WAIT_SECONDS = 60
    UserFactory(username="alice")
    created = basic_client("alice").post(
        "/api/v1/user/repos", {"name": "upstream", "private": True, "auto_init": True}
    )
    assert created.status_code == 201, created.content
    return f"{live_server.url}/alice/upstream.git"


def push_commit(upstream_url: str, workdir, name: str) -> str:
    """Clone with credentials, commit, push: the remote moves on."""
    authed = upstream_url.replace("http://", f"http://alice:{PASSWORD}@")
    if not workdir.exists():
        git("clone", "--quiet", authed, str(workdir))
    (workdir / name).write_text(name)
    git("add", name, cwd=workdir)
    git("commit", "--quiet", "-m", name, cwd=workdir)
    git("push", "--quiet", "origin", "HEAD:main", cwd=workdir)
    return git("rev-parse", "HEAD", cwd=workdir)


def remote_head(upstream_url: str) -> str:
    result = subprocess.run(
        ["git", "ls-remote", upstream_url.replace("http://", f"http://alice:{PASSWORD}@"), "main"],
        env=GIT_ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.split()[0]


def test_a_private_remote_is_mirrored_with_stored_credentials_and_synced(
    celery_worker, upstream, tmp_path, clean_git_root
):
    response = basic_client("alice").post(
        URL,
        {
            "clone_addr": upstream,
            "repo_name": "copy",
            "mirror": True,
            "auth_username": "alice",
            "auth_password": PASSWORD,
            "service": "gitea",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["original_url"] == upstream
    assert body["mirror"] is True
    assert body["mirror_interval"] == "8h0m0s"
    assert body["permissions"] == {"admin": True, "push": True, "pull": True}
    assert PASSWORD not in response.content.decode()

    mirror = Mirror.objects.get(repo_id=body["id"])
    assert PASSWORD not in mirror.encrypted_credentials
    assert credentials.decrypt(mirror.encrypted_credentials).password == PASSWORD
    path = clean_git_root / "alice" / "copy.git"
    # The mirror's own git config names the remote without any credential.
    assert PASSWORD not in (path / "config").read_text()
    assert git("config", "remote.origin.url", cwd=path) == upstream

    first_update = mirror.updated
    head = push_commit(upstream, tmp_path / "work", "later.txt")
    assert basic_client("alice").post("/api/v1/repos/alice/copy/mirror-sync").status_code == 200

    def synced():
        mirror.refresh_from_db()
        return mirror.updated > first_update

    wait_until(synced, 30, message="the mirror sync")
    assert git("rev-parse", "refs/heads/main", cwd=path) == head
    shown = basic_client("alice").get("/api/v1/repos/alice/copy").json()
    # The wire has whole seconds: it shows the sync's time, which may equal the migration's.
    assert shown["mirror_updated"] == mirror.updated.replace(microsecond=0).isoformat()
    assert PASSWORD not in worker_log()


def test_a_wrong_password_is_an_authentication_failure_and_leaves_nothing(
    celery_worker, upstream, clean_git_root
):
    wrong = "not-the-Pa55word"
    response = basic_client("alice").post(
        URL,
        {
            "clone_addr": upstream,
            "repo_name": "copy",
            "auth_username": "alice",
            "auth_password": wrong,
        },
        format="json",
    )
    assert response.status_code == 422, response.content
    assert response.json()["message"].startswith("Authentication failed: ")
    assert wrong not in response.content.decode()
    assert not Repository.objects.filter(name="copy").exists()
    assert MigrationTask.objects.get().status == MigrationTask.Status.FAILED
    assert not (clean_git_root / "alice" / "copy.git").exists()
    assert files_under(clean_git_root / ".migrating") == []
    assert wrong not in worker_log()


def test_no_credentials_for_a_private_remote_is_an_authentication_failure(celery_worker, upstream):
    response = basic_client("alice").post(
        URL, {"clone_addr": upstream, "repo_name": "copy"}, format="json"
    )
    assert response.status_code == 422
    assert "could not read Username" in response.json()["message"]


def test_a_token_is_used_as_the_remote_credential(celery_worker, upstream, clean_git_root):
    created = basic_client("alice").post(
        "/api/v1/users/alice/tokens",
        {"name": "migrate", "scopes": ["read:repository"]},
        format="json",
    )
    assert created.status_code == 201, created.content
    token = created.json()["sha1"]
    response = basic_client("alice").post(
        URL,
        {"clone_addr": upstream, "repo_name": "by-token", "auth_token": token},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert token not in response.content.decode()
    path = clean_git_root / "alice" / "by-token.git"
    assert git("rev-parse", "refs/heads/main", cwd=path) == remote_head(upstream)


def test_an_allow_list_entry_opens_a_loopback_host(celery_worker, upstream, settings):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = False
    response = basic_client("alice").post(
        URL,
        {
            "clone_addr": upstream,
            "repo_name": "a",
            "auth_username": "alice",
            "auth_password": PASSWORD,
        },
        format="json",
    )
    assert response.status_code == 422
    assert response.json()["message"] == "You can not import from disallowed hosts."
    settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = ["127.0.0.0/8", "localhost"]
    response = basic_client("alice").post(
        URL,
        {
            "clone_addr": upstream,
            "repo_name": "a",
            "auth_username": "alice",
            "auth_password": PASSWORD,
        },
        format="json",
    )
    assert response.status_code == 201, response.content


def test_a_member_migrates_into_an_organization_they_own(celery_worker, upstream):
    alice = basic_client("alice")
    assert alice.post("/api/v1/orgs", {"username": "acme"}, format="json").status_code == 201
    response = alice.post(
        URL,
        {
            "clone_addr": upstream,
            "repo_owner": "acme",
            "repo_name": "imported",
            "auth_username": "alice",
            "auth_password": PASSWORD,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["full_name"] == "acme/imported"
    # Like any new org repository: counted, and in the teams that include every repository.
    assert alice.get("/api/v1/orgs/acme").status_code == 200
    [owners] = alice.get("/api/v1/orgs/acme/teams").json()
    team_repos = alice.get(f"/api/v1/teams/{owners['id']}/repos").json()
    assert [repo["name"] for repo in team_repos] == ["imported"]
    feed = alice.get(f"/api/v1/teams/{owners['id']}/activities/feeds").json()
    assert [entry["op_type"] for entry in feed] == ["create_repo"]


def test_the_site_can_force_every_migrated_repository_private(celery_worker, upstream, settings):
    settings.CODEHOST_FORCE_PRIVATE = True
    response = basic_client("alice").post(
        URL,
        {
            "clone_addr": upstream,
            "repo_name": "forced",
            "private": False,
            "auth_username": "alice",
            "auth_password": PASSWORD,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["private"] is True
