"""Robot accounts and the audit log (Harbor's `robot` and `audit_log` tables)."""

from django.db import models

__all__ = ["AuditLog", "Robot"]


class Robot(models.Model):
    """A robot account: a name and secret for machines, allowed only its `permissions`.

    `name` is stored without the configured prefix (`project+name` or `name`), as Harbor
    stores it, so renaming the prefix renames every robot. The secret is kept only as a
    password hash.
    """

    class Level(models.TextChoices):
        SYSTEM = "system"
        PROJECT = "project"

    name = models.CharField(max_length=255, unique=True)
    description = models.TextField(blank=True)
    secret_hash = models.CharField(max_length=255)
    level = models.CharField(max_length=16, choices=Level.choices)
    # Set for project robots only; they go with their project.
    project = models.ForeignKey(
        "registry.Project",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="robots",
    )
    # Harbor's shape: [{"kind", "namespace", "access": [{"resource", "action", "effect"}]}].
    permissions = models.JSONField(default=list)
    duration = models.BigIntegerField()
    # Unix seconds, -1 for never.
    expires_at = models.BigIntegerField()
    disabled = models.BooleanField(default=False)
    creator_type = models.CharField(max_length=32, default="local")
    creator_ref = models.BigIntegerField(default=0)
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["level", "project", "name"])]

    def __str__(self):
        return self.name


class AuditLog(models.Model):
    """One operation on a project's resources. The project is kept as a plain id: the
    records outlive the project (its deletion is itself recorded)."""

    project_id = models.BigIntegerField(default=0)
    operation = models.CharField(max_length=32)
    resource_type = models.CharField(max_length=32)
    resource = models.CharField(max_length=512)
    username = models.CharField(max_length=255)
    op_time = models.DateTimeField()

    class Meta:
        ordering = ["-op_time", "-id"]
        indexes = [
            models.Index(fields=["-op_time", "-id"], name="registry_audit_time"),
            models.Index(fields=["project_id", "-op_time", "-id"], name="registry_audit_project"),
            models.Index(fields=["username"], name="registry_audit_username"),
        ]

    def __str__(self):
        return f"{self.username} {self.operation} {self.resource_type} {self.resource}"
