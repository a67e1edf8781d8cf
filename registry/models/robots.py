"""Robot accounts: names and secrets for machines (Harbor's `robot` table)."""

from django.db import models

__all__ = ["Robot"]


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
