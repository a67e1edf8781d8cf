"""The registry's section of the admin dashboard (config/dashboard.py): five queries,
six once garbage collection records exist."""

from django.apps import apps
from django.db.models import Count, Sum
from django.urls import NoReverseMatch, reverse

from config.dashboard import Figure, Section, Table, human_bytes
from registry.distribution.models import Upload
from registry.models import Artifact, Project, Repository

LARGEST = 5


def garbage_collection() -> list[Figure]:
    """The last garbage collection run, once registry.gc's records exist (nothing before)."""
    try:
        execution = apps.get_model("registry", "GCExecution")
    except LookupError:
        return []
    last = execution.objects.order_by("-creation_time", "-id").first()
    try:
        link = reverse("admin:registry_gcexecution_changelist")
    except NoReverseMatch:
        link = ""
    if last is None:
        return [Figure("Last garbage collection", "never", link)]
    summary = (
        f"{last.status}, {last.creation_time:%Y-%m-%d %H:%M} "
        f"({human_bytes(last.freed_bytes)} freed)"
    )
    return [Figure("Last garbage collection", summary, link, alert=last.status == "Error")]


def section() -> Section:
    projects = Project.objects.aggregate(count=Count("pk"), used=Sum("storage_used"))
    uploads = Upload.objects.aggregate(count=Count("pk"), received=Sum("offset"))
    largest = Project.objects.order_by("-storage_used", "name").values_list(
        "pk", "name", "storage_used", "storage_limit"
    )[:LARGEST]
    return Section(
        "Registry",
        figures=[
            Figure("Projects", projects["count"], reverse("admin:registry_project_changelist")),
            Figure(
                "Repositories",
                Repository.objects.count(),
                reverse("admin:registry_repository_changelist"),
            ),
            Figure(
                "Artifacts", Artifact.objects.count(), reverse("admin:registry_artifact_changelist")
            ),
            Figure("Storage used", human_bytes(projects["used"])),
            Figure(
                "Uploads in progress",
                f"{uploads['count']} ({human_bytes(uploads['received'])} received)",
                reverse("admin:registry_upload_changelist"),
            ),
            *garbage_collection(),
        ],
        tables=[
            Table(
                "Largest projects",
                ["project", "used", "quota"],
                [
                    [
                        (name, reverse("admin:registry_project_change", args=[pk])),
                        human_bytes(used),
                        "unlimited" if limit < 0 else human_bytes(limit),
                    ]
                    for pk, name, used, limit in largest
                ],
                empty="no projects",
            )
        ],
    )
