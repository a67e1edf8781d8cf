"""Records of the OCI distribution API: blobs, their links to repositories, uploads, subjects.

Repositories, artifacts and tags are the registry's own records (registry.models); these
hold what only the distribution protocol needs.
"""

import uuid

from django.db import models, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

__all__ = ["ArtifactBlob", "Blob", "Referrer", "RepositoryBlob", "Upload"]


class Blob(models.Model):
    """Content stored once at its digest (layers, configs and manifests alike)."""

    digest = models.CharField(max_length=200, unique=True)
    size = models.BigIntegerField()
    # Where the bytes are in the `registry` storage: `blobs/<alg>/<ab>/<hex>-<generation>`,
    # a name no other row ever had (rows from before generations: `blobs/<alg>/<ab>/<hex>`).
    # A completing upload writes a new object before its row names it, and garbage
    # collection deletes the object a row named after that row's deletion committed, so a
    # sweep never deletes bytes a newer row relies on (storage.py).
    object_name = models.CharField(max_length=255, unique=True)
    creation_time = models.DateTimeField(auto_now_add=True)
    # When a push last uploaded, mounted or re-used it: garbage collection keeps a blob
    # touched within its time window (pushes touch the row before relying on the file).
    update_time = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.digest


class ArtifactBlob(models.Model):
    """A blob (config or layer) an image manifest references: what garbage collection keeps.

    PROTECT: a referenced blob row can never be deleted, whatever deletes it.
    """

    artifact = models.ForeignKey(
        "registry.Artifact", on_delete=models.CASCADE, related_name="blob_links"
    )
    blob = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="artifact_links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["artifact", "blob"], name="distribution_artifact_blob")
        ]

    def __str__(self):
        return f"{self.artifact_id}->{self.blob_id}"


class RepositoryBlob(models.Model):
    """A blob reachable in a repository (pushed or mounted there).

    Keyed by the repository's full name: blobs are uploaded before the manifest that
    creates the repository record.
    """

    repository_name = models.CharField(max_length=255)
    blob = models.ForeignKey(Blob, on_delete=models.CASCADE, related_name="links")
    creation_time = models.DateTimeField(auto_now_add=True)
    # Set when the last artifact of the repository referencing the blob was deleted: the
    # project's usage stops counting it (Harbor releases the project's association), while
    # the repository still reaches it, as Distribution keeps a repository's links until
    # garbage collection removes the blob. A client that found the layer present (HEAD)
    # before such a delete and sends its manifest after it is accepted; referencing,
    # uploading or mounting the blob again holds it (and charges the project) again.
    released = models.BooleanField(db_default=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository_name", "blob"], name="distribution_repository_blob_unique"
            )
        ]

    def __str__(self):
        return f"{self.repository_name}@{self.blob_id}"


class Upload(models.Model):
    """A blob upload in progress; its bytes are staged in a file named by the id (or in
    objects, on object storage)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    repository_name = models.CharField(max_length=255)
    # Bytes received so far (the staged file's length after the last completed request).
    offset = models.BigIntegerField(default=0)
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True, db_index=True)
    # On object storage (registry.distribution.s3) the bytes so far are objects, one per
    # request, listed here as [name, size] in order; the request changing the upload holds
    # it (`holder`) until `held_until`, renewed while it streams. Unused on a filesystem.
    segments = models.JSONField(default=list, blank=True)
    holder = models.UUIDField(null=True, blank=True)
    held_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["creation_time"]

    def __str__(self):
        return f"{self.repository_name} upload {self.id}"


class Referrer(models.Model):
    """An artifact whose manifest has a `subject` (or a cosign signature tagged for one):
    one entry of the referrers API, and one of Harbor's accessories.

    Holds the descriptor fields of the referring manifest itself (its own size, not the
    artifact's total).
    """

    artifact = models.OneToOneField(
        "registry.Artifact", on_delete=models.CASCADE, related_name="referrer"
    )
    subject_digest = models.CharField(max_length=200)
    media_type = models.CharField(max_length=255)
    artifact_type = models.CharField(max_length=255, blank=True)
    size = models.BigIntegerField()
    annotations = models.JSONField(null=True, blank=True)
    # Harbor's accessory type when the manifest does not say it (a cosign signature pushed
    # by its `sha256-<hex>.sig` tag, registry.services.accessories); else by artifact_type.
    accessory_type = models.CharField(max_length=32, blank=True, db_default="")

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["subject_digest"])]

    def __str__(self):
        return f"{self.artifact_id} -> {self.subject_digest}"


@receiver(post_delete, sender="registry.Repository")
def forget_repository_blobs(sender, instance, **kwargs):
    """A deleted repository's blobs stop being reachable under its name (either API)."""
    RepositoryBlob.objects.filter(repository_name=instance.name).delete()


@receiver(post_delete, sender="registry.Project")
def forget_project_uploads(sender, instance, **kwargs):
    """Nothing stays behind a deleted project's name: the blobs linked under it (pushed
    under a repository name that never got a manifest) and its uploads in progress, staged
    files included. Otherwise whoever creates a project of that name next would reach them.
    """
    from registry.distribution import storage

    prefix = instance.name + "/"
    RepositoryBlob.objects.filter(repository_name__startswith=prefix).delete()
    uploads = list(
        Upload.objects.filter(repository_name__startswith=prefix).values_list("id", flat=True)
    )
    Upload.objects.filter(id__in=uploads).delete()

    def discard_files():
        for upload_id in uploads:
            storage.discard_upload_file(upload_id)

    transaction.on_commit(discard_files)
