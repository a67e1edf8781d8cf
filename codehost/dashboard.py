"""Code hosting's section of the admin dashboard (config/dashboard.py): four queries."""

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from codehost.models import MigrationTask, Mirror, Owner, Repository
from config.dashboard import Figure, Section


def overdue_after() -> timedelta:
    """A mirror whose next update passed two periodic passes ago was not queued (beat or
    worker down, or the batch too small for the due mirrors)."""
    check = settings.CELERY_BEAT_SCHEDULE["codehost-queue-due-mirrors"]["schedule"]
    return timedelta(seconds=2 * float(check))


def section() -> Section:
    now = timezone.now()
    day_ago = now - timedelta(days=1)
    active = [MigrationTask.Status.QUEUED, MigrationTask.Status.RUNNING]
    owners = Owner.objects.aggregate(
        organizations=Count("pk", filter=Q(kind=Owner.Kind.ORGANIZATION)),
        users=Count("pk", filter=Q(kind=Owner.Kind.USER)),
    )
    # Two counts on the status index rather than one pass over every migration ever run.
    migrations = {
        "running": MigrationTask.objects.filter(status__in=active).count(),
        "failed": MigrationTask.objects.filter(
            status=MigrationTask.Status.FAILED, finished__gte=day_ago
        ).count(),
    }
    mirrors = Mirror.objects.aggregate(
        total=Count("pk"),
        overdue=Count(
            "pk",
            filter=Q(sync_state=Mirror.SyncState.IDLE, next_update__lt=now - overdue_after()),
        ),
        failing=Count("pk", filter=~Q(last_error="")),
    )
    migration_list = reverse("admin:codehost_migrationtask_changelist")
    mirror_list = reverse("admin:codehost_mirror_changelist")
    return Section(
        "Code hosting",
        figures=[
            Figure(
                "Repositories",
                Repository.objects.count(),
                reverse("admin:codehost_repository_changelist"),
            ),
            Figure(
                "Organizations",
                owners["organizations"],
                reverse("admin:codehost_owner_changelist") + "?kind__exact=organization",
            ),
            Figure("Users", owners["users"]),
            Figure(
                "Migrations running",
                migrations["running"],
                migration_list + "?status__in=queued,running",
            ),
            Figure(
                "Migrations failed (24 h)",
                migrations["failed"],
                migration_list + "?status__exact=failed",
                alert=migrations["failed"] > 0,
            ),
            Figure("Mirrors", mirrors["total"], mirror_list),
            Figure(
                "Mirrors overdue",
                mirrors["overdue"],
                mirror_list + "?overdue=1",
                alert=mirrors["overdue"] > 0,
            ),
            Figure(
                "Mirrors whose last sync failed",
                mirrors["failing"],
                mirror_list + "?failing=1",
                alert=mirrors["failing"] > 0,
            ),
        ],
    )
