"""Garbage collection (Harbor's GC job): mark what the database references, sweep the rest.

It runs online. Its cutoff is the moment the mark began minus GC_TIME_WINDOW_HOURS; what a
push touched since then is kept. The rules that make a racing push safe:

- pushes renew a blob row's `update_time` (committed) before relying on its file
  (`blobs.renew`, mounts), and lock the rows of the blobs a manifest references while its
  artifact is recorded (`manifests._hold_blobs`);
- the sweep locks a batch of candidate rows (in primary key order, as pushes do), reads
  the rules again in a new statement and deletes the rows; once that has committed it
  deletes the objects those rows named (no request to the storage inside a transaction).
  A push therefore either went first (the sweep sees its touch or reference) or waits and
  then finds no row: it writes its bytes to a new object name and records a new row, or
  is refused, and never records a reference to an object the sweep deletes. On SQLite the
  IMMEDIATE transactions the settings configure take the database's write lock at BEGIN,
  which serialises the same steps.
- objects that no row names (a process died between writing an object and recording it,
  or between deleting a row and its object) are deleted once older than
  REGISTRY_ORPHAN_GRACE_MINUTES: a completing upload records its object well within that.
"""

import logging
import time
from datetime import datetime, timedelta

from celery.schedules import ParseException, crontab
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet, Value
from django.db.models.functions import Concat
from django.utils import timezone

from registry.distribution import blobs, storage
from registry.gc.models import GCExecution, GCSchedule
from registry.models import (
    Artifact,
    ArtifactBlob,
    ArtifactReference,
    Blob,
    Project,
    Referrer,
    RepositoryBlob,
    Tag,
    Upload,
)
from registry.services import artifacts, quota

logger = logging.getLogger(__name__)

JOB_NAME = "GARBAGE_COLLECTION"
BATCH = 200
# A pending or running execution not updated for this long is given up (see `start`).
STALE_AFTER = timedelta(hours=1)
# A running execution delivered again is resumed once it has saved nothing for this long.
RESUME_AFTER = timedelta(minutes=2)
# The log is written to the database at most this often while a run goes on.
LOG_INTERVAL = 5.0
DEFAULT_CRONS = {
    GCSchedule.Type.HOURLY: "0 0 * * * *",
    GCSchedule.Type.DAILY: "0 0 0 * * *",
    GCSchedule.Type.WEEKLY: "0 0 0 * * 0",
}


class AlreadyRunning(Exception):
    """A garbage collection is pending or running: one at a time."""


class InvalidSchedule(Exception):
    """A schedule type or cron expression that cannot be run."""


# --- starting and scheduling -------------------------------------------------------------------


def start(delete_untagged: bool, dry_run: bool, trigger: str) -> GCExecution:
    """Record a pending run and queue it once committed; AlreadyRunning if one is active."""
    from registry.gc.tasks import run_garbage_collection

    # A run whose worker and message were both lost would block every later one.
    GCExecution.objects.filter(active=True, update_time__lt=timezone.now() - STALE_AFTER).update(
        status=GCExecution.Status.ERROR,
        active=None,
        log=Concat("log", Value("[ERROR] no progress for an hour: given up\n")),
    )
    try:
        with transaction.atomic():
            execution = GCExecution.objects.create(
                trigger=trigger,
                delete_untagged=delete_untagged,
                dry_run=dry_run,
                time_window_hours=settings.GC_TIME_WINDOW_HOURS,
            )
            transaction.on_commit(lambda: run_garbage_collection.delay(execution.pk))
    except IntegrityError as exc:
        raise AlreadyRunning("a garbage collection is already pending or running") from exc
    return execution


def parse_cron(cron: str) -> crontab:
    """Harbor's six-field cron (the seconds field is accepted; runs start on the minute)."""
    fields = cron.split()
    if len(fields) != 6:
        raise InvalidSchedule(f"invalid cron: {cron}")
    second, minute, hour, day, month, weekday = fields
    try:
        if second != "*" and not 0 <= int(second) <= 59:
            raise ValueError(second)
        return crontab(
            minute=minute,
            hour=hour,
            day_of_month=day,
            month_of_year=month,
            day_of_week=weekday,
        )
    except (ValueError, TypeError, ParseException) as exc:
        raise InvalidSchedule(f"invalid cron: {cron}") from exc


def next_run(cron: str, after: datetime) -> datetime:
    schedule = parse_cron(cron)
    schedule.nowfun = lambda: after
    return after + schedule.remaining_estimate(after)


def set_schedule(
    cron_type: str, cron: str, delete_untagged: bool, dry_run: bool
) -> GCSchedule | None:
    """Replace the schedule (type None removes it)."""
    if cron_type == "None":
        GCSchedule.objects.all().delete()
        return None
    if cron_type not in GCSchedule.Type.values:
        raise InvalidSchedule(f"invalid schedule type: {cron_type}")
    cron = (cron or DEFAULT_CRONS.get(cron_type, "")).strip()
    if not cron:
        raise InvalidSchedule("a Custom schedule needs a cron expression")
    upcoming = next_run(cron, timezone.now())
    with transaction.atomic():
        GCSchedule.objects.all().delete()
        return GCSchedule.objects.create(
            cron_type=cron_type,
            cron=cron,
            delete_untagged=delete_untagged,
            dry_run=dry_run,
            next_run=upcoming,
        )


def run_due(now: datetime | None = None) -> GCExecution | None:
    """Start the scheduled run when its time has come (called by a beat tick)."""
    now = now or timezone.now()
    with transaction.atomic():
        schedule = GCSchedule.objects.select_for_update().first()
        if schedule is None or schedule.next_run > now:
            return None
        schedule.next_run = next_run(schedule.cron, now)
        schedule.save(update_fields=["next_run", "update_time"])
    try:
        return start(schedule.delete_untagged, schedule.dry_run, GCExecution.Trigger.SCHEDULE)
    except AlreadyRunning:
        logger.info("scheduled garbage collection skipped: another one is running")
        return None


# --- the run -------------------------------------------------------------------------------------


PROGRESS_FIELDS = (
    "status",
    "active",
    "log",
    "freed_bytes",
    "deleted_blobs",
    "deleted_artifacts",
    "deleted_uploads",
)


class RunLog:
    """The run's text log, saved on the execution as it grows (readable while running)."""

    def __init__(self, execution: GCExecution):
        self.execution = execution
        # A run resumed after its worker was lost goes on with the log it had.
        self.lines: list[str] = execution.log.splitlines()
        self.saved = 0.0

    def write(self, level: str, message: str) -> None:
        stamp = timezone.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        self.lines.append(f"{stamp} [{level}] {message}")

    def info(self, message: str) -> None:
        self.write("INFO", message)

    def save(self, **fields) -> None:
        execution = self.execution
        execution.log = "\n".join(self.lines) + "\n"
        for key, value in fields.items():
            setattr(execution, key, value)
        # An UPDATE, never save(): a record deleted meanwhile is not written back.
        GCExecution.objects.filter(pk=execution.pk).update(
            update_time=timezone.now(),
            **{name: getattr(execution, name) for name in PROGRESS_FIELDS},
        )
        self.saved = time.monotonic()

    def checkpoint(self) -> None:
        """Save now and then: the whole text is rewritten each time."""
        if time.monotonic() - self.saved >= LOG_INTERVAL:
            self.save()


def run(execution_id: int) -> None:
    """Run a pending execution, or resume one whose worker was lost; a finished one, or one
    another worker is running (a duplicate delivery), is left alone."""
    now = timezone.now()
    runs = GCExecution.objects.filter(pk=execution_id)
    claimed = runs.filter(status=GCExecution.Status.PENDING).update(
        status=GCExecution.Status.RUNNING, update_time=now
    ) or runs.filter(status=GCExecution.Status.RUNNING, update_time__lt=now - RESUME_AFTER).update(
        update_time=now
    )
    if not claimed:
        return
    execution = runs.get()
    log = RunLog(execution)
    log.save(status=GCExecution.Status.RUNNING)
    try:
        collect(execution, log)
    except Exception:
        logger.exception("garbage collection %s failed", execution_id)
        log.write("ERROR", "garbage collection failed; see the worker's log")
        log.save(status=GCExecution.Status.ERROR, active=None)
        return
    log.save(status=GCExecution.Status.SUCCESS, active=None)


def collect(execution: GCExecution, log: RunLog) -> None:
    dry_run = execution.dry_run
    began = timezone.now()
    cutoff = began - timedelta(hours=execution.time_window_hours)
    would = "would be " if dry_run else ""
    log.info(
        f"garbage collection started: delete_untagged={execution.delete_untagged}, "
        f"dry_run={dry_run}, time window {execution.time_window_hours} hours "
        f"(what was pushed since {cutoff:%Y-%m-%dT%H:%M:%SZ} is kept)"
    )
    untagged = untagged_artifacts(cutoff)
    if execution.delete_untagged:
        rows = list(untagged.order_by("pk").values_list("pk", "repository__name", "digest"))
        for artifact_id, repository, digest in rows:
            if dry_run or delete_untagged_artifact(artifact_id, cutoff):
                execution.deleted_artifacts += 1
                log.info(f"untagged artifact {repository}@{digest} {would}deleted")
                log.checkpoint()
        log.save()
    ignoring = untagged if dry_run and execution.delete_untagged else None
    candidates = list(
        unreferenced(Blob.objects.all(), cutoff, ignoring)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    log.info(f"{len(candidates)} blobs referenced by no manifest")
    for start_at in range(0, len(candidates), BATCH):
        batch = candidates[start_at : start_at + BATCH]
        removed = (
            list(Blob.objects.filter(pk__in=batch).order_by("pk").values_list("digest", "size"))
            if dry_run
            else sweep(batch, cutoff)
        )
        for digest, size in removed:
            log.info(f"blob {digest} ({size} bytes) {would}deleted")
            execution.freed_bytes += size
            execution.deleted_blobs += 1
        log.checkpoint()
    expired = Upload.objects.filter(
        update_time__lt=began - timedelta(hours=settings.REGISTRY_UPLOAD_EXPIRY_HOURS)
    ).order_by("creation_time")
    for upload in expired:
        log.info(
            f"expired upload {upload.id} of {upload.repository_name} "
            f"({upload.offset} bytes) {would}deleted"
        )
        if not dry_run:
            blobs.cancel_upload(upload)
        execution.freed_bytes += upload.offset
        execution.deleted_uploads += 1
    orphans = purge_orphan_objects(dry_run)
    if orphans:
        log.info(f"{orphans} blob objects no blob names {would}deleted")
    log.info(
        f"garbage collection finished: {execution.deleted_artifacts} artifacts, "
        f"{execution.deleted_blobs} blobs and {execution.deleted_uploads} uploads {would}deleted, "
        f"{execution.freed_bytes} bytes {would}freed"
    )


def untagged_artifacts(cutoff: datetime) -> QuerySet:
    """Artifacts with no tag, no index referencing them, no subject still present (signatures
    and other accessories follow their subject), pushed before the cutoff."""
    subject_present = Exists(
        Artifact.objects.filter(
            repository_id=OuterRef("artifact__repository_id"), digest=OuterRef("subject_digest")
        )
    )
    accessories = Referrer.objects.filter(subject_present).values("artifact_id")
    return (
        Artifact.objects.filter(push_time__lt=cutoff)
        .exclude(Exists(Tag.objects.filter(artifact=OuterRef("pk"))))
        .exclude(Exists(ArtifactReference.objects.filter(child=OuterRef("pk"))))
        .exclude(pk__in=accessories)
    )


def delete_untagged_artifact(artifact_id: int, cutoff: datetime) -> bool:
    """Delete the artifact if, under its project's lock (taken by pushes too), it is still
    untagged, unreferenced and older than the cutoff; its project's usage follows."""
    project_id = (
        Artifact.objects.filter(pk=artifact_id).values_list("project_id", flat=True).first()
    )
    if project_id is None:
        return False
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project_id).first()
        artifact = untagged_artifacts(cutoff).filter(pk=artifact_id).first()
        if artifact is None:
            return False
        artifacts.delete_artifact(artifact)
    return True


def unreferenced(blobs_: QuerySet, cutoff: datetime, ignoring: QuerySet | None = None) -> QuerySet:
    """Blobs untouched since the cutoff that no manifest references: neither as its config or
    layer nor as its own bytes. `ignoring`: artifacts to count as gone (a dry run)."""
    layers = ArtifactBlob.objects.filter(blob=OuterRef("pk"))
    manifests = Artifact.objects.filter(digest=OuterRef("digest"))
    if ignoring is not None:
        layers = layers.exclude(artifact__in=ignoring.values("pk"))
        manifests = manifests.exclude(pk__in=ignoring.values("pk"))
    return blobs_.filter(update_time__lt=cutoff).exclude(Exists(layers)).exclude(Exists(manifests))


def sweep(batch: list[int], cutoff: datetime) -> list[tuple[str, int]]:
    """Remove the batch's blobs that are still unreferenced, once locked (module docstring);
    then the usage of the projects whose repositories held them is recounted (after the
    commit: pushes lock a project before its blobs, the sweep never holds both)."""
    with transaction.atomic():
        locked = list(
            Blob.objects.select_for_update()
            .filter(pk__in=batch)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        # A new statement: under READ COMMITTED it sees what the pushes we waited for wrote.
        doomed = list(
            unreferenced(Blob.objects.filter(pk__in=locked), cutoff)
            .order_by("pk")
            .values_list("pk", "digest", "size", "object_name")
        )
        ids = [pk for pk, _, _, _ in doomed]
        holders = set(
            RepositoryBlob.objects.filter(blob_id__in=ids).values_list("repository_name", flat=True)
        )
        Blob.objects.filter(pk__in=ids).delete()
    storage.delete_objects(name for _, _, _, name in doomed)
    projects = {name.split("/", 1)[0] for name in holders}
    for project in Project.objects.filter(name__in=projects):
        quota.recount_usage(project)
    return [(digest, size) for _, digest, size, _ in doomed]


def purge_orphan_objects(dry_run: bool = False) -> int:
    """Delete the blob objects no row names, untouched for the grace period (and unfinished
    multipart writes as old); how many there were. Names are checked against the rows a
    page at a time, after the listing: an object recorded meanwhile is kept."""
    cutoff = timezone.now() - timedelta(minutes=settings.REGISTRY_ORPHAN_GRACE_MINUTES)
    found = 0
    page: list[str] = []

    def settle() -> int:
        named = set(Blob.objects.filter(object_name__in=page).values_list("object_name", flat=True))
        orphans = [name for name in page if name not in named]
        if orphans and not dry_run:
            storage.delete_objects(orphans)
        page.clear()
        return len(orphans)

    for name, modified in storage.blob_objects():
        if modified < cutoff.timestamp():
            page.append(name)
        if len(page) >= 1000:
            found += settle()
    found += settle()
    if not dry_run:
        storage.abort_unfinished_writes(cutoff)
    return found
