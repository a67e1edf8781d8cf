"""Work nobody finished is cleaned up; stored credentials only open with the right key."""

from datetime import timedelta

import pytest
from django.utils import timezone

from codehost import credentials, git
from codehost.models import MigrationTask, Repository
from codehost.services import migrations
from tests.codehost.factories import RepositoryFactory, owner_of

pytestmark = pytest.mark.django_db


def stuck_migration(alice, age_seconds: int) -> MigrationTask:
    repo = RepositoryFactory(
        owner=owner_of(alice), name="stuck", status=Repository.Status.BEING_MIGRATED
    )
    task = MigrationTask.objects.create(
        repo=repo,
        doer=alice,
        owner=repo.owner,
        repo_name=repo.name,
        clone_addr="https://example.com/a.git",
        service="git",
        status=MigrationTask.Status.RUNNING,
    )
    MigrationTask.objects.filter(pk=task.pk).update(
        created=timezone.now() - timedelta(seconds=age_seconds)
    )
    return task


def test_the_reaper_removes_migrations_stuck_past_the_wait(alice, settings, clean_git_root):
    task = stuck_migration(alice, settings.CODEHOST_MIGRATION_WAIT_SECONDS + 120)
    staging = migrations.staging_path(task.pk)
    staging.mkdir(parents=True)
    (staging / "HEAD").write_text("ref: refs/heads/main\n")
    leftover = migrations.staging_path(task.pk + 1000)
    leftover.mkdir()

    assert migrations.reap_stuck_migrations() == 1
    task.refresh_from_db()
    assert task.status == MigrationTask.Status.FAILED
    assert task.error_code == "internal"
    assert not Repository.objects.filter(name="stuck").exists()
    assert not staging.exists() and not leftover.exists()


def test_the_reaper_leaves_migrations_still_within_their_time(alice):
    task = stuck_migration(alice, 5)
    assert migrations.reap_stuck_migrations() == 0
    task.refresh_from_db()
    assert task.status == MigrationTask.Status.RUNNING
    assert Repository.objects.filter(name="stuck").exists()


def test_a_finished_migration_is_not_failed_afterwards(alice):
    task = stuck_migration(alice, 5)
    MigrationTask.objects.filter(pk=task.pk).update(status=MigrationTask.Status.SUCCEEDED)
    assert migrations.fail_migration(task.pk, "internal", "late") is False
    assert Repository.objects.filter(name="stuck").exists()


def test_credentials_are_ciphertext_that_only_the_configured_key_opens(settings):
    secret = credentials.RemoteCredentials("bob", "hunter2-secret")
    stored = credentials.encrypt(secret)
    assert "hunter2" not in stored and "bob" not in stored
    assert credentials.decrypt(stored) == secret
    assert "hunter2" not in repr(secret)
    settings.CODEHOST_SECRET_KEY = "another key entirely"
    with pytest.raises(credentials.CredentialsUnreadable):
        credentials.decrypt(stored)
    assert credentials.encrypt(credentials.RemoteCredentials()) == ""


def test_git_credentials_travel_in_the_environment_only():
    env = git.remote_env("bob", "hunter2-secret")
    assert env["CODEHOST_REMOTE_PASSWORD"] == "hunter2-secret"
    assert all("hunter2" not in value for key, value in env.items() if key.startswith("GIT_"))
