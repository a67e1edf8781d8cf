"""Labels (global or per project) and their attachment to artifacts."""

from django.db import models
from django.db.models import Q

from registry.models.artifacts import Artifact
from registry.models.projects import Project

__all__ = ["ArtifactLabel", "Label"]


class Label(models.Model):
    class Scope(models.TextChoices):
        GLOBAL = "g", "global"
        PROJECT = "p", "project"

    name = models.CharField(max_length=128)
    description = models.TextField(blank=True)
    color = models.CharField(max_length=16, blank=True)
    scope = models.CharField(max_length=1, choices=Scope.choices)
    # Set for project labels only.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, null=True, blank=True, related_name="labels"
    )
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["name"], condition=Q(project__isnull=True), name="registry_label_global"
            ),
            models.UniqueConstraint(
                fields=["project", "name"],
                condition=Q(project__isnull=False),
                name="registry_label_project",
            ),
        ]

    def __str__(self):
        return self.name


class ArtifactLabel(models.Model):
    artifact = models.ForeignKey(Artifact, on_delete=models.CASCADE, related_name="label_links")
    label = models.ForeignKey(Label, on_delete=models.CASCADE, related_name="artifact_links")
    creation_time = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["artifact", "id"]
        constraints = [
            models.UniqueConstraint(fields=["artifact", "label"], name="registry_artifact_label")
        ]

    def __str__(self):
        return f"{self.artifact_id}:{self.label_id}"
