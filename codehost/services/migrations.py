"""POST /repos/migrate: the checks made before any work, the repository record created in
"being migrated" and its task queued, the caller's wait, and the removal of whatever
failed, crashed or was given up on. The worker's part is in migration_worker.
"""

import fnmatch
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from codehost import access, credentials, git, migration_notices, names
from codehost.access import Actor
from codehost.errors import (
    FILES_EXIST,
    REPO_EXISTS,
    Conflict,
    Forbidden,
    InternalError,
    Invalid,
    from_code,
)
from codehost.models import MigrationTask, Mirror, Owner, Repository, ServiceType
from codehost.remote_address import CloneSource, detect_service, parse_clone_address
from codehost.services import accounts, migration_limits, mirrors, repositories

STAGING_DIR = ".migrating"
# Units of a pull mirror in Gitea: no pull requests, no actions.
MIRROR_DROPPED_UNITS = ("repo.pulls", "repo.actions")
# Gitea's service names -> its numbering (`original_service_type`).
SERVICE_TYPES = {choice.label: choice for choice in ServiceType}
CRASH_MESSAGE = "the migration worker stopped before finishing"


@dataclass
class MigrationRequest:
    clone_addr: str
    repo_name: str
    repo_owner: str = ""
    uid: int | None = None
    service: str = ""
    auth_username: str = ""
    auth_password: str = ""
    auth_token: str = ""
    mirror: bool = False
    mirror_interval: str = ""
    private: bool = False
    description: str = ""
    wiki: bool = False
    issues: bool = False
    milestones: bool = False
    labels: bool = False
    pull_requests: bool = False
    releases: bool = False
    lfs: bool = False


def resolve_owner(doer, request: MigrationRequest) -> Owner:
    """`repo_owner`, else `uid`, else the caller; an unknown one is invalid (Gitea's wording)."""
    if request.repo_owner:
        owner = Owner.objects.filter(lower_name=request.repo_owner.lower()).first()
        if owner is None:
            raise Invalid(f"user does not exist [uid: 0, name: {request.repo_owner}]")
        return owner
    if request.uid:
        owner = Owner.objects.filter(pk=request.uid).first()
        if owner is None:
            raise Invalid(f"user does not exist [uid: {request.uid}, name: ]")
        return owner
    return accounts.user_owner(doer)


def check_may_migrate_into(doer, owner: Owner) -> None:
    if doer.is_superuser or owner.user_id == doer.pk:
        return
    if not owner.is_organization:
        raise Forbidden("Given user is not an organization.")
    if not access.is_org_owner(Actor(owner=accounts.user_owner(doer)), owner):
        raise Forbidden("Given user is not owner of organization.")


def check_repo_name(name: str) -> None:
    """The shared name rules, worded as Gitea's migrate handler words them."""
    lowered = name.strip().lower()
    if lowered in names.REPO_RESERVED:
        raise Invalid(f"The username '{name}' is reserved.")
    for pattern in names.REPO_PATTERNS:
        if fnmatch.fnmatchcase(lowered, pattern):
            raise Invalid(f"The pattern '{pattern}' is not allowed in a username.")
    if ".." in name:
        raise Invalid(f"The username '{name}' contains invalid characters.")


def check_site_allows(request: MigrationRequest) -> None:
    """The site's switches, checked after the address as Gitea's handler does."""
    no_new_mirrors = (
        settings.CODEHOST_DISABLE_NEW_PULL_MIRRORS or not settings.CODEHOST_MIRRORS_ENABLED
    )
    if request.mirror and no_new_mirrors:
        raise Forbidden("the site administrator has disabled the creation of new pull mirrors")
    if settings.CODEHOST_DISABLE_MIGRATIONS:
        raise Forbidden("the site administrator has disabled migrations")


def check_creation_limit(doer, owner: Owner) -> None:
    limit = repositories.creation_limit(owner)
    if doer.is_superuser or limit < 0:
        return
    if owner.num_repos >= limit:
        raise Invalid(f"You have already reached your limit of {limit} repositories.")


def remote_credentials(request: MigrationRequest, source: CloneSource):
    """auth_username/auth_password, else a token (as Gitea's downloaders send it), else
    whatever was written into the address."""
    if request.auth_username or request.auth_password:
        return credentials.RemoteCredentials(request.auth_username, request.auth_password)
    if request.auth_token:
        return credentials.RemoteCredentials(request.auth_username or "oauth2", request.auth_token)
    return credentials.RemoteCredentials(source.username, source.password)


def effective_options(request: MigrationRequest) -> dict:
    """Comments are migrated always, except that a mirror migrates no issue-tracker items."""
    items = {
        "wiki": request.wiki,
        "issues": request.issues,
        "milestones": request.milestones,
        "labels": request.labels,
        "comments": True,
        "pull_requests": request.pull_requests,
        "releases": request.releases,
        "lfs": False,
    }
    if request.mirror:
        for key in ("issues", "milestones", "labels", "comments", "pull_requests", "releases"):
            items[key] = False
    return {"mirror": request.mirror, **items}


def start_migration(
    doer, request: MigrationRequest, enqueue: Callable[[int], object]
) -> MigrationTask:
    """Every check, then the repository (being migrated) and its task, handed to `enqueue`
    (codehost.tasks' queueing, given by the caller) once committed."""
    owner = resolve_owner(doer, request)
    check_may_migrate_into(doer, owner)
    may_import_local = settings.CODEHOST_IMPORT_LOCAL_PATHS and doer.is_superuser
    source = parse_clone_address(request.clone_addr, may_import_local=may_import_local)
    check_site_allows(request)
    interval = (
        mirrors.interval_seconds(
            request.mirror_interval or settings.CODEHOST_MIRROR_DEFAULT_INTERVAL
        )
        if request.mirror
        else 0
    )
    check_repo_name(request.repo_name)
    service = detect_service(request.service, source)
    remote = remote_credentials(request, source)
    units = Repository._meta.get_field("units").get_default()
    if request.mirror:
        units = {key: value for key, value in units.items() if key not in MIRROR_DROPPED_UNITS}
    try:
        with transaction.atomic():
            # The caller's web thread waits on the task: capped per user and in all.
            migration_limits.claim_waiting_slot(doer)
            # Serialises creations per owner so the limit check cannot be raced past.
            owner = Owner.objects.select_for_update().get(pk=owner.pk)
            check_creation_limit(doer, owner)
            repo = Repository.objects.create(
                owner=owner,
                name=request.repo_name,
                description=request.description,
                private=request.private or settings.CODEHOST_FORCE_PRIVATE,
                is_mirror=request.mirror,
                status=Repository.Status.BEING_MIGRATED,
                original_url=source.url,
                original_service_type=SERVICE_TYPES[service],
                default_branch=settings.CODEHOST_DEFAULT_BRANCH,
                units=units,
                num_watches=1,
            )
            # The name is free (or the insert raised): files on disk are somebody else's.
            if git.repo_path(owner.name, repo.name).exists():
                raise Conflict(FILES_EXIST)
            # Owner's repository count and the org teams that include every repository.
            repositories.after_repo_created(repo, owner)
            encrypted = credentials.encrypt(remote)
            if request.mirror:
                Mirror.objects.create(
                    repo=repo, interval_seconds=interval, encrypted_credentials=encrypted
                )
            task = MigrationTask.objects.create(
                repo=repo,
                doer=doer,
                owner=owner,
                repo_name=request.repo_name,
                clone_addr=source.url,
                encrypted_credentials=encrypted,
                service=service,
                options=effective_options(request),
            )
            transaction.on_commit(lambda: enqueue(task.pk))
    except IntegrityError as error:
        raise Conflict(REPO_EXISTS) from error
    return task


def wait_for_migration(task: MigrationTask, seconds: float) -> MigrationTask:
    """Wait for the worker's notice; past `seconds`, give up and clean up.

    A notice of success is sent after the worker's last commit, so the repository can be
    rendered at once; any other wake-up reads the record, which stays the truth."""
    began = time.monotonic()
    while (waited := time.monotonic() - began) < seconds:
        notice = migration_notices.wait(
            task.pk, min(seconds - waited, migration_notices.CHECK_SECONDS), waited
        )
        if notice == MigrationTask.Status.SUCCEEDED:
            task.status = notice
            return task
        task = MigrationTask.objects.select_related("repo__owner").get(pk=task.pk)
        if task.status in (MigrationTask.Status.SUCCEEDED, MigrationTask.Status.FAILED):
            return task
    fail_migration(
        task.pk, InternalError.code, f"the migration did not finish within {int(seconds)} seconds"
    )
    return MigrationTask.objects.get(pk=task.pk)


def raise_if_failed(task: MigrationTask) -> None:
    if task.status == MigrationTask.Status.FAILED:
        raise from_code(task.error_code, task.error)


def staging_path(task_id: int) -> Path:
    return git.root() / STAGING_DIR / f"{task_id}.git"


def fail_migration(task_id: int, code: str, message: str, *, remove_directory: bool = True) -> bool:
    """Mark failed and remove the repository, record and directories (the final one only
    if `remove_directory`); False if it had already finished either way."""
    with transaction.atomic():
        task = (
            MigrationTask.objects.select_for_update(of=("self",))
            .select_related("repo__owner")
            .filter(pk=task_id)
            .first()
        )
        if task is None or task.status in (
            MigrationTask.Status.SUCCEEDED,
            MigrationTask.Status.FAILED,
        ):
            return False
        task.status = MigrationTask.Status.FAILED
        task.error_code = code
        task.error = message
        task.finished = timezone.now()
        task.save(update_fields=["status", "error_code", "error", "finished"])
        transaction.on_commit(lambda: migration_notices.announce(task_id, task.status))
        repo = task.repo
        transaction.on_commit(lambda: git.delete(staging_path(task_id)))
        if repo is not None and repo.status == Repository.Status.BEING_MIGRATED:
            # A crash inside the worker's last transaction can leave the clone in place.
            repositories.delete_repo(repo, remove_directory=remove_directory)
    return True


def reap_stuck_migrations() -> int:
    """Migrations nobody finished (web and worker both gone) fail and are removed; staging
    directories of finished migrations are swept."""
    limit = timezone.now() - timedelta(seconds=settings.CODEHOST_MIGRATION_WAIT_SECONDS + 60)
    stuck = MigrationTask.objects.filter(
        status__in=[MigrationTask.Status.QUEUED, MigrationTask.Status.RUNNING],
        created__lt=limit,
    ).values_list("pk", flat=True)
    reaped = sum(fail_migration(task_id, InternalError.code, CRASH_MESSAGE) for task_id in stuck)
    staging_root = git.root() / STAGING_DIR
    if staging_root.is_dir():
        active = set(
            MigrationTask.objects.filter(
                status__in=[MigrationTask.Status.QUEUED, MigrationTask.Status.RUNNING]
            ).values_list("pk", flat=True)
        )
        for entry in staging_root.iterdir():
            if entry.name.removesuffix(".git") not in {str(pk) for pk in active}:
                git.delete(entry)
    return reaped
