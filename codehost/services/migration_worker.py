"""The worker's part of a migration: the clone, the move into place, the notification.

A migration's final directory only appears in the worker's last transaction, the one that
marks it succeeded; until then git writes into a staging directory named after the task,
so cleaning up a failed migration never races a half-written repository into place.
"""

import logging
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone

from codehost import credentials, git, github_api, migration_notices
from codehost.errors import FILES_EXIST, Conflict, InternalError, Invalid
from codehost.models import MigrationTask, Mirror, OpType, Owner, Repository
from codehost.remote_address import InvalidCloneAddress, PinnedRemote, pin_remote, scrub
from codehost.services import activity
from codehost.services.migrations import CRASH_MESSAGE, fail_migration, staging_path
from codehost.signals import ensure_user_owner

logger = logging.getLogger(__name__)


# Sent (inside the worker's final transaction) when a migration succeeded.
repository_migrated = Signal()
AUTH_FAILURE_MARKERS = (
    "Authentication failed",
    "Bad credentials",
    "could not read Username",
    "could not read Password",
)


def classify_git_error(message: str) -> tuple[str, str]:
    """A failed migration's error code from what git said: authentication and git fatal
    errors are the caller's input to fix, anything else is our failure."""
    if any(marker in message for marker in AUTH_FAILURE_MARKERS):
        return Invalid.code, f"Authentication failed: {message}."
    if "fatal:" in message:
        return Invalid.code, f"Migration failed: {message}."
    return InternalError.code, message


def run_migration(task_id: int) -> None:
    """Clone into staging, then move into place; idempotent for a redelivered message."""
    task = (
        MigrationTask.objects.select_related("repo__owner", "repo__mirror", "doer__codehost_owner")
        .filter(pk=task_id)
        .first()
    )
    if task is None or task.status in (
        MigrationTask.Status.SUCCEEDED,
        MigrationTask.Status.FAILED,
    ):
        return
    claimed = MigrationTask.objects.filter(pk=task_id, status=MigrationTask.Status.QUEUED).update(
        status=MigrationTask.Status.RUNNING, started=timezone.now(), attempts=F("attempts") + 1
    )
    if not claimed:
        # Delivered again because the worker running it died: as Gitea when the handler
        # crashes, the repository goes and the caller gets an error.
        fail_migration(task_id, InternalError.code, CRASH_MESSAGE)
        return
    staging = staging_path(task_id)
    git.delete(staging)
    remote = credentials.RemoteCredentials()
    try:
        # The address is checked again as it resolves now (the request's check was a
        # moment ago, names may resolve elsewhere since) and git is held to what was checked.
        pinned = pin_remote(task.clone_addr)
    except InvalidCloneAddress as error:
        logger.warning("migration %s refused: %s", task_id, error.message)
        fail_migration(task_id, error.code, error.message)
        return
    try:
        remote = credentials.decrypt(task.encrypted_credentials)
        if task.service == "github":
            github_api.check_repository(
                task.clone_addr,
                username=remote.username,
                password=remote.password,
                timeout=settings.CODEHOST_MIGRATION_TIMEOUT,
            )
        git.clone_mirror(
            task.clone_addr,
            staging,
            timeout=settings.CODEHOST_MIGRATION_TIMEOUT,
            username=remote.username,
            password=remote.password,
            pinned=pinned.config,
        )
        if task.options.get("wiki"):
            clone_wiki(task, staging, remote, pinned)
        if not task.options.get("mirror"):
            git.remove_origin(staging)
    except (git.GitError, credentials.CredentialsUnreadable, github_api.GitHubRefused) as error:
        git.delete(staging)
        message = scrub(str(error), remote.secrets)
        code = getattr(error, "code", None)
        if code is None:
            code, message = classify_git_error(message)
        logger.warning("migration %s failed: %s", task_id, message)
        fail_migration(task_id, code, message)
        return
    try:
        finish_migration(task, staging)
    except TargetExists:
        git.delete(staging)
        # Somebody else's files: the repository record goes, the directory stays.
        fail_migration(task_id, Conflict.code, FILES_EXIST, remove_directory=False)


def clone_wiki(
    task: MigrationTask,
    staging: Path,
    remote: credentials.RemoteCredentials,
    pinned: PinnedRemote,
):
    """The remote's wiki repository, when it has one; as in Gitea, a wiki that fails to
    clone is only a warning, the code still migrates. It lives on the same host: the same
    pinned addresses."""
    timeout = settings.CODEHOST_MIGRATION_TIMEOUT
    login = {"username": remote.username, "password": remote.password, "pinned": pinned.config}
    source = git.find_wiki_remote(task.clone_addr, timeout=timeout, **login)
    if source is None:
        return
    wiki = git.wiki_path(staging)
    try:
        git.clone_mirror(source, wiki, timeout=timeout, **login)
        if not task.options.get("mirror"):
            git.remove_origin(wiki)
    except git.GitError as error:
        git.delete(wiki)
        message = scrub(str(error), remote.secrets)
        logger.warning("wiki of migration %s not cloned: %s", task.pk, message)


FIELDS_FOUND_BY_MIGRATION = ("status", "is_empty", "size", "default_branch", "updated_at")


class TargetExists(Exception):
    """The repository's directory appeared on disk while git was cloning."""


def finish_migration(task: MigrationTask, staging: Path) -> None:
    """One transaction: the task succeeds (unless given up on meanwhile), the clone moves
    into place, the repository is ready, the notification raised. What the repository
    shows is read from the clone before, outside the transaction."""
    repo = task.repo
    repo.is_empty = git.is_empty(staging)
    repo.size = git.size(staging)
    repo.default_branch = git.default_branch(staging) or repo.default_branch
    repo.status = Repository.Status.READY
    repo.updated_at = now = timezone.now()
    with transaction.atomic():
        # The row lock this takes is the one fail_migration waits on: a caller giving up
        # finds the migration finished, or the worker finds it failed and stops here.
        succeeded = MigrationTask.objects.filter(
            pk=task.pk, status=MigrationTask.Status.RUNNING, repo__isnull=False
        ).update(status=MigrationTask.Status.SUCCEEDED, finished=now)
        # Its name now: the owner may have renamed it while git cloned (the row lock
        # holds a rename off until the clone is in place, where a rename then moves it).
        current = (
            Repository.objects.select_for_update(of=("self",))
            .select_related("owner")
            .filter(pk=repo.pk)
            .first()
        )
        if not succeeded or current is None:
            # Removing a whole clone is no work to hold the database's locks for.
            transaction.on_commit(lambda: git.delete(staging))
            return
        try:
            git.move(staging, git.repo_path(current.owner.name, current.name))
        except git.GitError as error:
            raise TargetExists from error
        Repository.objects.filter(pk=repo.pk).update(
            **{field: getattr(repo, field) for field in FIELDS_FOUND_BY_MIGRATION}
        )
        if repo.is_mirror:
            interval = repo.mirror.interval_seconds
            Mirror.objects.filter(repo=repo).update(
                updated=now, next_update=now + timedelta(seconds=interval) if interval else None
            )
        task.status, task.finished = MigrationTask.Status.SUCCEEDED, now
        transaction.on_commit(lambda: migration_notices.announce(task.pk, task.status))
        repository_migrated.send(sender=MigrationTask, task=task, repo=repo)


def record_migration_activity(sender, task: MigrationTask, repo: Repository, **kwargs) -> None:
    """The feed side of the migration notification: create_repo, as Gitea's feed notifier."""
    try:
        actor = task.doer.codehost_owner
    except Owner.DoesNotExist:
        actor = ensure_user_owner(task.doer) or repo.owner
    activity.record_activity(actor, OpType.CREATE_REPO, repo)


repository_migrated.connect(record_migration_activity, dispatch_uid="codehost-migration-feed")
