"""The registry's section of the admin dashboard (config/dashboard.py): six queries."""

from django.db.models import Count, Sum
from django.urls import reverse

from config.dashboard import Figure, Section, Table, human_bytes
from registry.distribution.models import Upload
from registry.gc.models import GCExecution
from registry.models import Artifact, Project, Repository

LARGEST = 5


def garbage_collection() -> Figure:
    """The last garbage collection run."""
    last = GCExecution.objects.order_by("-creation_time", "-id").first()
    link = reverse("admin:registry_gcexecution_changelist")
    if last is None:
        return Figure("Last garbage collection", "never", link)
    summary = (
        f"{last.status}, {last.creation_time:%Y-%m-%d %H:%M} "
        f"({human_bytes(last.freed_bytes)} freed)"
    )
    return Figure("Last garbage collection", summary, link, alert=last.status == "Error")


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
            garbage_collection(),
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
