"""Records of migrations and pull mirrors.

Both keep the state of work done by Celery workers on the `git` queue, so a worker that
dies, a message delivered twice, or a web process that stops waiting all leave a record
that says what happened.
"""

from django.conf import settings
from django.db import models


class MigrationTask(models.Model):
    """One POST /repos/migrate: queued -> running -> succeeded | failed."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    # Null once a failed migration's repository has been removed.
    repo = models.ForeignKey(
        "codehost.Repository",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="migration_tasks",
    )
    doer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="codehost_migrations"
    )
    owner = models.ForeignKey(
        "codehost.Owner", on_delete=models.CASCADE, related_name="migration_tasks"
    )
    repo_name = models.CharField(max_length=100)
    # Without credentials; those are only in `encrypted_credentials`.
    clone_addr = models.CharField(max_length=2048)
    encrypted_credentials = models.TextField(blank=True)
    service = models.CharField(max_length=16)
    # What was asked for after Gitea's rules (mirror turns issues, labels... off).
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    attempts = models.IntegerField(default=0)
    # On failure, the domain error (codehost.errors: its code and message) the waiting
    # request raises; credentials scrubbed.
    error_code = models.CharField(max_length=16, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"migration {self.pk} of {self.repo_name} ({self.status})"


class Mirror(models.Model):
    """A pull mirror: its schedule, its credentials and the state of its sync."""

    class SyncState(models.TextChoices):
        IDLE = "idle"
        QUEUED = "queued"
        RUNNING = "running"

    repo = models.OneToOneField(
        "codehost.Repository", on_delete=models.CASCADE, related_name="mirror"
    )
    # 0 = no periodic sync (Gitea's "0s").
    interval_seconds = models.IntegerField()
    enable_prune = models.BooleanField(default=True)
    # Null when periodic sync is off; the beat task picks rows whose time has come.
    next_update = models.DateTimeField(null=True, blank=True)
    # When the last successful sync finished (the wire's `mirror_updated`).
    updated = models.DateTimeField(null=True, blank=True)
    encrypted_credentials = models.TextField(blank=True)
    # The guard against queueing one mirror twice: only idle -> queued queues a task.
    sync_state = models.CharField(max_length=8, choices=SyncState.choices, default=SyncState.IDLE)
    sync_requested = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        indexes = [models.Index(fields=["sync_state", "next_update"])]

    def __str__(self):
        return f"mirror of repository {self.repo_id}"


__all__ = ["MigrationTask", "Mirror"]
