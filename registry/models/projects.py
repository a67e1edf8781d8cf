"""Projects, their metadata and members (users or groups holding a role)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from registry.models.users import UserGroup

__all__ = ["Project", "ProjectMember", "ProjectMetadata", "Role"]


class Role(models.IntegerChoices):
    PROJECT_ADMIN = 1, "projectAdmin"
    DEVELOPER = 2, "developer"
    GUEST = 3, "guest"
    MAINTAINER = 4, "maintainer"
    LIMITED_GUEST = 5, "limitedGuest"


class Project(models.Model):
    name = models.CharField(max_length=255, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="harbor_projects",
    )
    registry_id = models.BigIntegerField(null=True, blank=True)
    # Quota: bytes allowed (-1 unlimited) and bytes used by the project's artifacts.
    storage_limit = models.BigIntegerField(default=-1)
    storage_used = models.BigIntegerField(default=0)
    # The project's CVE allowlist (Harbor keeps one per project; its id is the project id).
    cve_allowlist_items = models.JSONField(default=list, blank=True)
    cve_allowlist_expires_at = models.BigIntegerField(null=True, blank=True)
    creation_time = models.DateTimeField(auto_now_add=True, db_index=True)
    update_time = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class ProjectMetadata(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="metadata")
    name = models.CharField(max_length=255)
    value = models.CharField(max_length=255, blank=True)
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["project", "name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="registry_metadata_unique")
        ]
        indexes = [models.Index(fields=["name", "value"])]

    def __str__(self):
        return f"{self.project_id}:{self.name}={self.value}"


class ProjectMember(models.Model):
    """A user or a group (exactly one) holding a role in a project."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="harbor_memberships",
    )
    group = models.ForeignKey(
        UserGroup,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="memberships",
    )
    role = models.PositiveSmallIntegerField(choices=Role.choices)
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["project", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False, group__isnull=True))
                | Q(user__isnull=True, group__isnull=False),
                name="registry_member_user_xor_group",
            ),
            models.CheckConstraint(condition=Q(role__gte=1, role__lte=5), name="registry_role"),
            models.UniqueConstraint(
                fields=["project", "user"],
                condition=Q(user__isnull=False),
                name="registry_member_unique_user",
            ),
            models.UniqueConstraint(
                fields=["project", "group"],
                condition=Q(group__isnull=False),
                name="registry_member_unique_group",
            ),
        ]

    def __str__(self):
        return f"{self.project_id}:{self.user_id or self.group_id}:{self.role}"

    @property
    def entity_type(self) -> str:
        return "u" if self.user_id else "g"
