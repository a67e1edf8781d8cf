"""Garbage collection records: the runs (Harbor's GC executions) and the one schedule."""

from django.db import models

__all__ = ["GCExecution", "GCSchedule"]


class GCExecution(models.Model):
    """One garbage collection run, with its parameters, outcome and log."""

    class Status(models.TextChoices):
        # Harbor's job statuses.
        PENDING = "Pending"
        RUNNING = "Running"
        STOPPED = "Stopped"
        ERROR = "Error"
        SUCCESS = "Success"

    class Trigger(models.TextChoices):
        MANUAL = "MANUAL"
        SCHEDULE = "SCHEDULE"

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    trigger = models.CharField(max_length=16, choices=Trigger.choices, default=Trigger.MANUAL)
    # True while pending or running, NULL once finished: the unique constraint lets one run
    # at a time exist, whichever process starts it.
    active = models.BooleanField(null=True, default=True, unique=True, editable=False)
    delete_untagged = models.BooleanField(default=False)
    dry_run = models.BooleanField(default=False)
    # GC_TIME_WINDOW_HOURS when the run was requested.
    time_window_hours = models.PositiveIntegerField(default=2)
    freed_bytes = models.BigIntegerField(default=0)
    deleted_blobs = models.PositiveIntegerField(default=0)
    deleted_artifacts = models.PositiveIntegerField(default=0)
    deleted_uploads = models.PositiveIntegerField(default=0)
    log = models.TextField(blank=True)
    creation_time = models.DateTimeField(auto_now_add=True, db_index=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-creation_time", "-id"]
        verbose_name = "garbage collection"

    def __str__(self):
        return f"garbage collection {self.pk} ({self.status})"

    @property
    def parameters(self) -> dict:
        return {
            "delete_untagged": self.delete_untagged,
            "dry_run": self.dry_run,
            "time_window": self.time_window_hours,
        }


class GCSchedule(models.Model):
    """The periodic garbage collection (at most one row; none when the type is None)."""

    class Type(models.TextChoices):
        HOURLY = "Hourly"
        DAILY = "Daily"
        WEEKLY = "Weekly"
        CUSTOM = "Custom"

    cron_type = models.CharField(max_length=16, choices=Type.choices)
    # Harbor's six-field cron: second minute hour day-of-month month day-of-week.
    cron = models.CharField(max_length=128)
    delete_untagged = models.BooleanField(default=False)
    dry_run = models.BooleanField(default=False)
    next_run = models.DateTimeField()
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "garbage collection schedule"

    def __str__(self):
        return f"{self.cron_type} ({self.cron})"
