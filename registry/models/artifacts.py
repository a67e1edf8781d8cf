"""Repositories, the artifacts pushed into them, their index references and tags."""

from django.db import models

from registry.models.projects import Project

__all__ = [
    "Artifact",
    "ArtifactReference",
    "ProjectRepositoryCount",
    "Repository",
    "RepositoryArtifactCount",
    "Tag",
]


class Repository(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="repositories")
    # The full name, "project/repo[/sub...]".
    name = models.CharField(max_length=255, unique=True)
    description = models.TextField(blank=True)
    pull_count = models.BigIntegerField(default=0)
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-creation_time", "-id"]
        verbose_name_plural = "repositories"
        indexes = [
            models.Index(fields=["project", "-creation_time", "-id"]),
            # Newest first with the project: a visible page walks this index alone,
            # checking each entry's project, and stops at the page's end.
            models.Index(fields=["-creation_time", "-id", "project"]),
            models.Index(fields=["project", "name"]),
        ]

    def __str__(self):
        return self.name


class ProjectRepositoryCount(models.Model):
    """How many repositories a project holds, kept by database triggers on every insert,
    delete and move of a repository (migration 0009); never written by the ORM. The lists'
    exact totals (X-Total-Count) add these up per visible project instead of counting
    every repository row: at 100,000 repositories that count alone cost ~10 ms on
    PostgreSQL and ~5-10 ms on SQLite per request."""

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    repository_count = models.BigIntegerField(default=0)

    def __str__(self):
        return f"{self.project_id}: {self.repository_count}"


class RepositoryArtifactCount(models.Model):
    """A repository's artifacts, and how many index references name one of them as their
    child, kept by database triggers (migration 0010); never written by the ORM. While no
    reference names a child of the repository, every artifact is one of Harbor's default
    set and `artifact_count` is the count a search or a repository list shows; otherwise
    they count (selectors.artifact_count). Both follow any write (the ORM, a cascade, raw
    SQL): a search of 1,000 repositories probed the references and tags of each artifact."""

    repository = models.OneToOneField(
        "Repository", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    artifact_count = models.BigIntegerField(db_default=0)
    child_count = models.BigIntegerField(db_default=0)
    # Of its artifacts, the accessories (a Referrer row each; migration 0013): Harbor's
    # counts leave them out.
    accessory_count = models.BigIntegerField(db_default=0)

    def __str__(self):
        return f"{self.repository_id}: {self.artifact_count} ({self.child_count} children)"


class Artifact(models.Model):
    class Type(models.TextChoices):
        IMAGE = "IMAGE"
        CHART = "CHART"
        CNAB = "CNAB"
        WASM = "WASM"
        SBOM = "SBOM"
        CNAI = "CNAI"
        UNKNOWN = "UNKNOWN"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="artifacts")
    # Denormalised from the repository: q filters and quota sums go by project.
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="artifacts")
    digest = models.CharField(max_length=255)
    type = models.CharField(max_length=16, choices=Type.choices, default=Type.UNKNOWN)
    media_type = models.CharField(max_length=255)
    manifest_media_type = models.CharField(max_length=255)
    artifact_type = models.CharField(max_length=255, blank=True)
    size = models.BigIntegerField(default=0)
    icon = models.CharField(max_length=255, blank=True)
    push_time = models.DateTimeField()
    pull_time = models.DateTimeField(null=True, blank=True)
    extra_attrs = models.JSONField(null=True, blank=True)
    annotations = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-push_time", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "digest"], name="registry_artifact_unique_digest"
            )
        ]
        indexes = [
            models.Index(fields=["repository", "-push_time", "-id"]),
            models.Index(fields=["project", "digest"]),
            models.Index(fields=["digest"]),
        ]

    def __str__(self):
        return f"{self.repository_id}@{self.digest}"


class ArtifactReference(models.Model):
    """A child manifest of an index (or manifest list), with its platform."""

    parent = models.ForeignKey(Artifact, on_delete=models.CASCADE, related_name="references")
    child = models.ForeignKey(
        Artifact, on_delete=models.CASCADE, null=True, blank=True, related_name="referenced_by"
    )
    child_digest = models.CharField(max_length=255)
    platform = models.JSONField(null=True, blank=True)
    annotations = models.JSONField(null=True, blank=True)
    urls = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["parent", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["parent", "child_digest"], name="registry_reference_unique_child"
            )
        ]

    def __str__(self):
        return f"{self.parent_id}->{self.child_digest}"


class Tag(models.Model):
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="tags")
    artifact = models.ForeignKey(Artifact, on_delete=models.CASCADE, related_name="tags")
    name = models.CharField(max_length=255)
    push_time = models.DateTimeField()
    pull_time = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-push_time", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "name"], name="registry_tag_unique_name")
        ]
        indexes = [models.Index(fields=["artifact", "-push_time", "-id"])]

    def __str__(self):
        return self.name
