"""POST /repos/migrate end to end: the real Celery worker clones real git repositories."""

import json
import os
import signal
import socket
import threading
from pathlib import Path

import pytest
from django.conf import settings

from codehost import credentials
from codehost.errors import FILES_EXIST
from codehost.models import Activity, MigrationTask, Mirror, OpType, Repository, ServiceType
from codehost.services import migration_worker, migrations
from tests.codehost.factories import UserFactory, owner_of
from tests.codehost_migrations.conftest import files_under, git
from tests.conftest import wait_until
from tests.races import run_together

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

URL = "/api/v1/repos/migrate"
SECRET = "s3cret-Pa55word-xyz"


def worker_log() -> str:
    return (Path(settings.DATA_DIR) / "celery-worker.log").read_text(errors="replace")


def test_migrating_a_local_repository_makes_a_ready_copy(
    celery_worker, admin_client, admin_user, local_imports, source_repo, clean_git_root
):
    source_repo.commit("second.txt", "two", branch="feature")
    response = admin_client.post(
        URL, {"clone_addr": str(source_repo.path), "repo_name": "Demo"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["full_name"], body["mirror"]) == ("Demo", "admin/Demo", False)
    assert body["empty"] is False
    assert body["original_url"] == str(source_repo.path)
    assert body["mirror_interval"] == ""

    repo = Repository.objects.get(pk=body["id"])
    assert repo.status == Repository.Status.READY
    assert repo.original_service_type == ServiceType.PLAIN_GIT
    path = clean_git_root / "admin" / "demo.git"
    copied = git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", cwd=path)
    assert dict(line.split(" ", 1) for line in copied.splitlines()) == source_repo.refs()
    # A migration (not a mirror) forgets its origin; pushes over smart HTTP are accepted.
    assert git("remote", cwd=path) == ""
    assert git("config", "http.receivepack", cwd=path) == "true"
    # Nothing left in staging.
    assert files_under(clean_git_root / ".migrating") == []
    task = MigrationTask.objects.get(repo=repo)
    assert task.status == MigrationTask.Status.SUCCEEDED
    assert task.options["comments"] is True
    feed = Activity.objects.filter(repo=repo, op_type=OpType.CREATE_REPO)
    assert feed.count() == 1
    assert feed.get().act_user.user == admin_user


def test_a_known_service_is_recorded_and_a_mirror_migrates_no_tracker_items(
    celery_worker, admin_client, local_imports, source_repo
):
    response = admin_client.post(
        URL,
        {
            "clone_addr": str(source_repo.path),
            "repo_name": "gh",
            "service": "github",
            "mirror": True,
            "issues": True,
            "labels": True,
            "releases": True,
            "wiki": True,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    repo = Repository.objects.get(pk=response.json()["id"])
    assert repo.original_service_type == ServiceType.GITHUB
    options = MigrationTask.objects.get(repo=repo).options
    assert options["mirror"] is True
    assert options["wiki"] is True
    for item in ("issues", "milestones", "labels", "comments", "pull_requests", "releases"):
        assert options[item] is False
    assert "repo.pulls" not in repo.units


def test_a_mirror_follows_new_commits_when_synced(
    celery_worker, admin_client, local_imports, source_repo, clean_git_root
):
    response = admin_client.post(
        URL,
        {
            "clone_addr": str(source_repo.path),
            "repo_name": "mirrored",
            "mirror": True,
            "mirror_interval": "10m",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["mirror"] is True
    assert body["mirror_interval"] == "10m0s"
    assert body["mirror_updated"] != "0001-01-01T00:00:00Z"
    mirror = Mirror.objects.get(repo_id=body["id"])
    first_update = mirror.updated
    assert mirror.next_update is not None

    head = source_repo.commit("new.txt", "new")
    sync = admin_client.post("/api/v1/repos/admin/mirrored/mirror-sync")
    assert sync.status_code == 200
    assert sync.content == b""

    def synced():
        mirror.refresh_from_db()
        return mirror.updated > first_update and mirror.sync_state == Mirror.SyncState.IDLE

    wait_until(synced, 30, message="the mirror sync to finish")
    path = clean_git_root / "admin" / "mirrored.git"
    assert git("rev-parse", "refs/heads/main", cwd=path) == head
    pushed = Activity.objects.get(repo_id=body["id"], op_type=OpType.MIRROR_SYNC_PUSH)
    assert pushed.ref_name == "refs/heads/main"
    assert json.loads(pushed.content)["CompareURL"].endswith(f"...{head}")


def test_a_failed_sync_keeps_the_last_good_state(
    celery_worker, admin_client, local_imports, source_repo, clean_git_root
):
    response = admin_client.post(
        URL, {"clone_addr": str(source_repo.path), "repo_name": "m", "mirror": True}, format="json"
    )
    assert response.status_code == 201, response.content
    mirror = Mirror.objects.get(repo_id=response.json()["id"])
    good_update = mirror.updated
    path = clean_git_root / "admin" / "m.git"
    good_head = git("rev-parse", "refs/heads/main", cwd=path)
    os.rename(source_repo.path, source_repo.path.with_name("moved-away"))

    assert admin_client.post("/api/v1/repos/admin/m/mirror-sync").status_code == 200

    def failed():
        mirror.refresh_from_db()
        return mirror.last_error and mirror.sync_state == Mirror.SyncState.IDLE

    wait_until(failed, 30, message="the mirror sync to fail")
    assert mirror.updated == good_update
    assert git("rev-parse", "refs/heads/main", cwd=path) == good_head
    assert Repository.objects.get(pk=mirror.repo_id).status == Repository.Status.READY


def test_a_failed_clone_removes_the_repository_and_its_directory(
    celery_worker, admin_client, local_imports, tmp_path, clean_git_root
):
    not_a_repo = tmp_path / "plain-directory"
    not_a_repo.mkdir()
    response = admin_client.post(
        URL, {"clone_addr": str(not_a_repo), "repo_name": "broken"}, format="json"
    )
    assert response.status_code == 422, response.content
    message = response.json()["message"]
    assert message.startswith("Migration failed: fatal:")
    assert Repository.objects.count() == 0
    assert MigrationTask.objects.get().status == MigrationTask.Status.FAILED
    assert files_under(clean_git_root) in ([], [clean_git_root / ".migrating"])
    # The name is free again.
    retry = admin_client.post(URL, {"clone_addr": str(not_a_repo), "repo_name": "broken"})
    assert retry.status_code == 422


def test_credentials_are_encrypted_and_never_shown(
    celery_worker, admin_client, settings, clean_git_root
):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    address = f"http://someone:{SECRET}@127.0.0.1:{port}/x.git"
    response = admin_client.post(
        URL,
        {
            "clone_addr": address,
            "repo_name": "secretive",
            "mirror": True,
            "auth_username": "someone",
            "auth_password": SECRET,
        },
        format="json",
    )
    assert response.status_code == 422, response.content
    assert SECRET not in response.content.decode()
    assert response.json()["message"].startswith("Migration failed: fatal: unable to access")
    task = MigrationTask.objects.get()
    assert SECRET not in task.clone_addr
    assert SECRET not in task.encrypted_credentials
    assert credentials.decrypt(task.encrypted_credentials).password == SECRET
    assert SECRET not in task.error
    assert SECRET not in worker_log()


def test_url_credentials_in_an_error_are_masked(celery_worker, admin_client, settings):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    response = admin_client.post(
        URL,
        {"clone_addr": f"http://user:{SECRET}@127.0.0.1:{port}/x.git", "repo_name": "r"},
        format="json",
    )
    assert response.status_code == 422
    assert SECRET not in response.content.decode()
    # Credentials written into the address are taken out of it before git sees it.
    assert f"http://127.0.0.1:{port}/x.git" in response.json()["message"]
    assert "user:" not in response.json()["message"]
    assert credentials.decrypt(MigrationTask.objects.get().encrypted_credentials).username == "user"


def test_two_migrations_of_one_name_at_once_give_one_201_and_one_409(
    celery_worker, admin_client, local_imports, source_repo
):
    from tests.codehost_migrations.conftest import basic_client

    clients = [basic_client("admin", "password") for _ in range(2)]
    body = {"clone_addr": str(source_repo.path), "repo_name": "race"}
    results = run_together([lambda c=c: c.post(URL, body).status_code for c in clients])
    assert sorted(results) == [201, 409]
    assert Repository.objects.filter(name="race").count() == 1


def hanging_git_server():
    """A loopback server that accepts connections and never answers: a clone that hangs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted = []

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)

    threading.Thread(target=serve, daemon=True).start()
    return server, accepted


def clone_processes(port: int) -> list[tuple[int, int]]:
    """(pid, parent pid) of git processes cloning from the loopback port."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if argv[:2] == [b"git", b"clone"] and any(f":{port}/".encode() in arg for arg in argv):
            found.append((int(entry.name), int(stat.rsplit(")", 1)[1].split()[1])))
    return found


def test_a_worker_killed_mid_migration_leaves_no_repository_behind(
    celery_worker, admin_client, settings, clean_git_root
):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    settings.CODEHOST_MIGRATION_WAIT_SECONDS = 60
    server, accepted = hanging_git_server()
    port = server.getsockname()[1]
    responses = []

    def post():
        responses.append(
            admin_client.post(
                URL, {"clone_addr": f"http://127.0.0.1:{port}/slow.git", "repo_name": "slow"}
            )
        )

    caller = threading.Thread(target=post)
    caller.start()
    try:
        [(_git_pid, worker_child)] = wait_until(
            lambda: clone_processes(port), 30, message="the worker to start cloning"
        )
        assert Repository.objects.get(name="slow").status == Repository.Status.BEING_MIGRATED
        os.kill(worker_child, signal.SIGKILL)
        caller.join(60)
    finally:
        server.close()
        for connection in accepted:
            connection.close()
    [response] = responses
    assert response.status_code == 500
    assert Repository.objects.filter(name="slow").count() == 0
    task = MigrationTask.objects.get()
    assert task.status == MigrationTask.Status.FAILED
    assert task.error == "the migration worker stopped before finishing"
    wait_until(lambda: not clone_processes(port), 10, message="git to die with its worker")
    # The redelivered task tells the caller first, then removes the staging clone.
    wait_until(
        lambda: files_under(clean_git_root) in ([], [clean_git_root / ".migrating"]),
        10,
        message="the staging clone to go",
    )


def test_a_migration_past_the_wait_fails_and_is_cleaned_up_when_git_ends(
    celery_worker, admin_client, settings, clean_git_root
):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    settings.CODEHOST_MIGRATION_WAIT_SECONDS = 2
    server, accepted = hanging_git_server()
    port = server.getsockname()[1]
    try:
        response = admin_client.post(
            URL, {"clone_addr": f"http://127.0.0.1:{port}/slow.git", "repo_name": "late"}
        )
        assert response.status_code == 500
        assert response.json()["message"] == "the migration did not finish within 2 seconds"
        assert not Repository.objects.filter(name="late").exists()
        assert MigrationTask.objects.get().status == MigrationTask.Status.FAILED
    finally:
        server.close()
        for connection in accepted:
            connection.close()
    # The worker's git gives up once the remote hangs up; it removes its staging copy.
    wait_until(lambda: not clone_processes(port), 30, message="the clone to end")
    wait_until(
        lambda: files_under(clean_git_root / ".migrating") == [],
        10,
        message="the staging directory to go",
    )
    assert not (clean_git_root / "admin" / "late.git").exists()


def test_an_admin_migrates_into_another_user_by_id_privately(
    celery_worker, admin_client, local_imports, source_repo, clean_git_root
):
    bob = owner_of(UserFactory(username="bob"))
    response = admin_client.post(
        URL,
        {
            "clone_addr": str(source_repo.path),
            "repo_name": "given",
            "uid": bob.pk,
            "private": True,
            "description": "migrated for bob",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["full_name"], body["private"]) == ("bob/given", True)
    assert body["description"] == "migrated for bob"
    assert (clean_git_root / "bob" / "given.git").is_dir()


def test_files_already_on_disk_give_409_and_stay(
    admin_client, local_imports, source_repo, clean_git_root
):
    theirs = clean_git_root / "admin" / "taken.git"
    theirs.mkdir(parents=True)
    (theirs / "keep.txt").write_text("mine")
    response = admin_client.post(URL, {"clone_addr": str(source_repo.path), "repo_name": "taken"})
    assert response.status_code == 409
    assert response.json()["message"] == FILES_EXIST
    assert not Repository.objects.filter(name="taken").exists()
    assert not MigrationTask.objects.exists()
    assert (theirs / "keep.txt").read_text() == "mine"


def test_files_that_appear_while_git_clones_give_409_and_stay(
    admin_user, local_imports, source_repo, clean_git_root
):
    # The worker's part run here, after the directory appeared: nothing queued.
    task = migrations.start_migration(
        admin_user,
        migrations.MigrationRequest(clone_addr=str(source_repo.path), repo_name="late"),
        enqueue=lambda task_id: None,
    )
    theirs = clean_git_root / "admin" / "late.git"
    theirs.mkdir(parents=True)
    (theirs / "keep.txt").write_text("mine")
    migration_worker.run_migration(task.pk)
    task.refresh_from_db()
    assert (task.status, task.error_code, task.error) == (
        MigrationTask.Status.FAILED,
        "conflict",
        FILES_EXIST,
    )
    assert not Repository.objects.filter(name="late").exists()
    assert (theirs / "keep.txt").read_text() == "mine"
    assert files_under(clean_git_root / ".migrating") == []


def test_deleting_a_repository_being_migrated_ends_its_migration(
    admin_user, admin_client, local_imports, source_repo, clean_git_root
):
    # The caller waiting on the migration is answered at once, its waiting slot freed
    # (it waited out CODEHOST_MIGRATION_WAIT_SECONDS before), and a worker that comes
    # late leaves nothing behind.
    task = migrations.start_migration(
        admin_user,
        migrations.MigrationRequest(clone_addr=str(source_repo.path), repo_name="gone"),
        enqueue=lambda task_id: None,
    )
    assert admin_client.delete("/api/v1/repos/admin/gone").status_code == 204
    task.refresh_from_db()
    assert task.status == MigrationTask.Status.FAILED
    assert task.error == "the repository was deleted while it was being migrated"
    assert migrations.wait_for_migration(task, 600).status == MigrationTask.Status.FAILED
    migration_worker.run_migration(task.pk)
    task.refresh_from_db()
    assert task.status == MigrationTask.Status.FAILED
    assert not Repository.objects.filter(name="gone").exists()
    assert not (clean_git_root / "admin" / "gone.git").exists()
    assert files_under(clean_git_root / ".migrating") == []


def test_a_repository_renamed_while_being_migrated_gets_its_clone_at_the_new_name(
    admin_user, admin_client, local_imports, source_repo, clean_git_root, monkeypatch
):
    task = migrations.start_migration(
        admin_user,
        migrations.MigrationRequest(clone_addr=str(source_repo.path), repo_name="before"),
        enqueue=lambda task_id: None,
    )
    clone = migration_worker.git.clone_mirror

    def rename_then_clone(*args, **kwargs):
        # The owner renames the repository while git clones (the worker read it before).
        renamed = admin_client.patch("/api/v1/repos/admin/before", {"name": "after"}, format="json")
        assert renamed.status_code == 200, renamed.content
        return clone(*args, **kwargs)

    monkeypatch.setattr(migration_worker.git, "clone_mirror", rename_then_clone)
    migration_worker.run_migration(task.pk)
    task.refresh_from_db()
    assert task.status == MigrationTask.Status.SUCCEEDED
    assert (clean_git_root / "admin" / "after.git" / "HEAD").is_file()
    assert not (clean_git_root / "admin" / "before.git").exists()
    repo = Repository.objects.get(name="after")
    assert (repo.status, repo.is_empty) == (Repository.Status.READY, False)
