"""Pull mirrors: their interval, queueing a sync at most once, the sync itself, and the
periodic pass that queues mirrors whose time has come.

The guard against a second queued sync is a conditional UPDATE (idle -> queued) on the
mirror row, so it holds across any number of web and worker processes.
"""

import json
import logging
import re
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from codehost import credentials, git
from codehost.access import Access
from codehost.errors import Archived, Forbidden, Invalid, Rejected
from codehost.models import Mirror, OpType, Repository
from codehost.remote_address import InvalidCloneAddress, pin_remote, scrub
from codehost.services import activity
from config.limits import INT32_MAX

logger = logging.getLogger(__name__)

GO_DURATION_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
}
GO_DURATION_MAX_SECONDS = (2**63 - 1) / 1e9
# ASCII digits only, as Go's time.ParseDuration ("٣h" is no duration).
GO_DURATION_PART = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")


class InvalidInterval(Invalid):
    pass


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration string ("8h", "1h30m", "10m0s", "0"); ValueError if invalid."""
    value = text.strip()
    if value in ("0", "+0", "-0"):
        return 0.0
    body = value.lstrip("+-")
    if not body or GO_DURATION_PART.sub("", body):
        raise ValueError(f'time: invalid duration "{text}"')
    seconds = sum(
        float(number) * GO_DURATION_UNITS[unit] for number, unit in GO_DURATION_PART.findall(body)
    )
    # Go's Duration is int64 nanoseconds: a longer one is invalid (and never inf here).
    if seconds > GO_DURATION_MAX_SECONDS:
        raise ValueError(f'time: invalid duration "{text}"')
    return -seconds if value.startswith("-") else seconds


def format_go_duration(seconds: int) -> str:
    """Go's Duration.String() for whole seconds: 28800 -> "8h0m0s", 0 -> "0s"."""
    if seconds == 0:
        return "0s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def interval_seconds(text: str) -> int:
    """A mirror interval as Gitea accepts it: a Go duration, 0 = off, else >= minimum."""
    try:
        seconds = parse_go_duration(text)
    except ValueError as error:
        raise InvalidInterval(f"invalid mirror interval: {error}") from error
    minimum = parse_go_duration(settings.CODEHOST_MIRROR_MIN_INTERVAL)
    if seconds != 0 and seconds < minimum:
        raise InvalidInterval(
            f"invalid mirror interval: {format_go_duration(round(seconds))} is below "
            f"minimum interval: {format_go_duration(round(minimum))}"
        )
    # The interval column is a 32-bit integer (about 68 years).
    if seconds > INT32_MAX:
        raise InvalidInterval(
            f"invalid mirror interval: {format_go_duration(round(seconds))} is above "
            f"maximum interval: {format_go_duration(INT32_MAX)}"
        )
    return round(seconds)


def mirror_of(repo: Repository) -> Mirror | None:
    """The repository's mirror row (loaded with select_related("mirror")), None if not a mirror."""
    if not repo.is_mirror:
        return None
    try:
        return repo.mirror
    except Mirror.DoesNotExist:
        return None


def edit_mirror(repo: Repository, interval: str | None, enable_prune: bool | None) -> None:
    """PATCH /repos/{owner}/{repo} on a mirror: a new interval restarts the schedule from now."""
    mirror = mirror_of(repo)
    if mirror is None:
        return
    if interval is not None:
        mirror.interval_seconds = interval_seconds(interval)
        mirror.next_update = next_update_after(timezone.now(), mirror.interval_seconds)
    if enable_prune is not None:
        mirror.enable_prune = enable_prune
    mirror.save(update_fields=["interval_seconds", "next_update", "enable_prune"])


def next_update_after(moment, interval: int):
    return moment + timedelta(seconds=interval) if interval else None


def request_sync(mirror_id: int, enqueue: Callable[[int], object]) -> bool:
    """Queue a sync unless one is already queued or running; True when queued now. The
    sync goes to `enqueue` (codehost.tasks' queueing, given by the caller) on commit."""
    queued = Mirror.objects.filter(pk=mirror_id, sync_state=Mirror.SyncState.IDLE).update(
        sync_state=Mirror.SyncState.QUEUED, sync_requested=timezone.now()
    )
    if queued:
        transaction.on_commit(lambda: enqueue(mirror_id))
    return bool(queued)


def sync_now(repo: Repository, repo_access: Access, enqueue: Callable[[int], object]) -> bool:
    """POST /repos/{owner}/{repo}/mirror-sync: who may ask, and of which repositories."""
    if not repo_access.can_write_code:
        raise Forbidden("user should have a permission to write to a repo")
    # Gitea's mustNotBeArchived guard.
    if repo.is_archived:
        raise Archived(f"{repo.owner.name}/{repo.name} is archived")
    if not settings.CODEHOST_MIRRORS_ENABLED:
        raise Rejected("Mirror feature is disabled")
    mirror = mirror_of(repo)
    if mirror is None:
        raise Rejected("Repository is not a mirror")
    return request_sync(mirror.pk, enqueue)


def queue_due_mirrors(enqueue: Callable[[int], object]) -> int:
    """Queue syncs of ready mirrors whose next update has come (Gitea's update_mirrors,
    which only runs while the mirror feature is on)."""
    if not settings.CODEHOST_MIRRORS_ENABLED:
        return 0
    due = Mirror.objects.filter(
        sync_state=Mirror.SyncState.IDLE,
        next_update__lte=timezone.now(),
        repo__status=Repository.Status.READY,
    ).order_by("next_update")[: settings.CODEHOST_MIRROR_BATCH]
    return sum(request_sync(pk, enqueue) for pk in due.values_list("pk", flat=True))


def run_sync(mirror_id: int) -> None:
    """The worker's half: fetch from origin; on failure the repository stays as it was."""
    started = Mirror.objects.filter(
        pk=mirror_id,
        sync_state__in=[Mirror.SyncState.QUEUED, Mirror.SyncState.RUNNING],
    ).update(sync_state=Mirror.SyncState.RUNNING)
    if not started:
        return
    mirror = Mirror.objects.select_related("repo__owner").get(pk=mirror_id)
    repo = mirror.repo
    if repo.status != Repository.Status.READY:
        Mirror.objects.filter(pk=mirror_id).update(sync_state=Mirror.SyncState.IDLE)
        return
    path = git.repo_path(repo.owner.name, repo.name)
    remote = credentials.RemoteCredentials()
    try:
        remote = credentials.decrypt(mirror.encrypted_credentials)
        # Every sync checks the origin against the rules as they are and as its name
        # resolves now; git then connects to the addresses checked.
        pinned = pin_remote(git.origin_url(path))
        before = git.refs(path)
        git.fetch_mirror(
            path,
            timeout=settings.CODEHOST_MIRROR_TIMEOUT,
            prune=mirror.enable_prune,
            username=remote.username,
            password=remote.password,
            pinned=pinned.config,
        )
        after = git.refs(path)
    except (git.GitError, credentials.CredentialsUnreadable, InvalidCloneAddress) as error:
        message = scrub(str(error), remote.secrets)
        logger.warning("mirror sync of repository %s failed: %s", repo.pk, message)
        now = timezone.now()
        Mirror.objects.filter(pk=mirror_id).update(
            sync_state=Mirror.SyncState.IDLE,
            last_error=message,
            next_update=next_update_after(now, mirror.interval_seconds),
        )
        return
    sync_wiki(repo, path, remote)
    finish_sync(mirror, before, after, path)


def sync_wiki(repo: Repository, path, remote: credentials.RemoteCredentials) -> None:
    """A mirror with a migrated wiki updates it too; a failure there is logged only."""
    wiki = git.wiki_path(path)
    if not wiki.is_dir():
        return
    try:
        git.fetch_mirror(
            wiki,
            timeout=settings.CODEHOST_MIRROR_TIMEOUT,
            prune=True,
            username=remote.username,
            password=remote.password,
            pinned=pin_remote(git.origin_url(wiki)).config,
        )
    except (git.GitError, InvalidCloneAddress) as error:
        message = scrub(str(error), remote.secrets)
        logger.warning("wiki sync of repository %s failed: %s", repo.pk, message)


def finish_sync(mirror: Mirror, before: dict, after: dict, path) -> None:
    repo = mirror.repo
    # Read from the repository before the transaction: no git inside one.
    branch = git.default_branch(path)
    size = git.size(path)
    now = timezone.now()
    with transaction.atomic():
        Mirror.objects.filter(pk=mirror.pk).update(
            sync_state=Mirror.SyncState.IDLE,
            updated=now,
            last_error="",
            next_update=next_update_after(now, mirror.interval_seconds),
        )
        Repository.objects.filter(pk=repo.pk).update(
            is_empty=not after,
            size=size,
            default_branch=branch or repo.default_branch,
            updated_at=now,
        )
        record_ref_changes(repo, before, after)


def record_ref_changes(repo: Repository, before: dict, after: dict) -> None:
    """Gitea's mirror_sync_* feed entries, one per changed ref, by the repository's owner."""
    for ref in sorted(before.keys() | after.keys()):
        old, new = before.get(ref), after.get(ref)
        if old == new:
            continue
        if old is None:
            op_type = OpType.MIRROR_SYNC_CREATE
        elif new is None:
            op_type = OpType.MIRROR_SYNC_DELETE
        else:
            op_type = OpType.MIRROR_SYNC_PUSH
        activity.record_activity(
            repo.owner, op_type, repo, ref_name=ref, content=push_content(repo, old, new)
        )


def push_content(repo: Repository, old: str | None, new: str | None) -> str:
    """Gitea's push payload shape; commits are not listed, the compare link says what moved."""
    if not (old and new):
        return ""
    compare = f"{repo.owner.name}/{repo.name}/compare/{old}...{new}"
    return json.dumps({"Commits": [], "HeadCommit": None, "CompareURL": compare, "Len": 0})


def reset_stuck_syncs() -> int:
    """Mirrors left queued or running by a lost message or a dead worker become idle again."""
    limit = timezone.now() - timedelta(seconds=settings.CODEHOST_MIRROR_TIMEOUT * 2)
    return Mirror.objects.filter(
        sync_state__in=[Mirror.SyncState.QUEUED, Mirror.SyncState.RUNNING],
        sync_requested__lt=limit,
    ).update(sync_state=Mirror.SyncState.IDLE)
