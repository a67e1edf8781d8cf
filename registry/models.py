"""Registry records: projects, their members and metadata, repositories, artifacts, tags,
labels, user groups and the system configuration store.

Django's User is Harbor's user (`is_superuser` is the sysadmin flag); Harbor-only user
fields live on UserProfile.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Role(models.IntegerChoices):
    PROJECT_ADMIN = 1, "projectAdmin"
    DEVELOPER = 2, "developer"
    GUEST = 3, "guest"
    MAINTAINER = 4, "maintainer"
    LIMITED_GUEST = 5, "limitedGuest"


class UserProfile(models.Model):
    """Harbor user fields Django's User has no place for."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="harbor_profile"
    )
    realname = models.CharField(max_length=255, blank=True)
    comment = models.CharField(max_length=30, blank=True)
    # Granted by an LDAP/HTTP/OIDC admin group, distinct from the stored sysadmin flag.
    admin_role_in_auth = models.BooleanField(default=False)

    def __str__(self):
        return f"profile of {self.user}"


class UserGroup(models.Model):
    class GroupType(models.IntegerChoices):
        LDAP = 1, "LDAP"
        HTTP = 2, "HTTP"
        OIDC = 3, "OIDC"

    group_name = models.CharField(max_length=255, db_index=True)
    group_type = models.PositiveSmallIntegerField(choices=GroupType.choices)
    # Empty for HTTP and OIDC groups; unique among LDAP groups.
    ldap_group_dn = models.CharField(max_length=512, blank=True)
    # Users currently in the group (filled by the LDAP/HTTP/OIDC sign-in); group members of a
    # project grant their role to these users.
    users = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="harbor_groups", blank=True
    )
    creation_time = models.DateTimeField(auto_now_add=True)
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["group_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["ldap_group_dn"],
                condition=~Q(ldap_group_dn=""),
                name="registry_usergroup_unique_dn",
            ),
            models.UniqueConstraint(
                fields=["group_name", "group_type"],
                condition=Q(ldap_group_dn=""),
                name="registry_usergroup_unique_name_without_dn",
            ),
        ]

    def __str__(self):
        return self.group_name


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


class ConfigEntry(models.Model):
    """One system configuration value; defaults and types live in registry.configuration."""

    key = models.CharField(max_length=128, unique=True)
    value = models.JSONField()
    update_time = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        verbose_name_plural = "config entries"

    def __str__(self):
        return self.key


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
            models.Index(fields=["-creation_time", "-id"]),
            models.Index(fields=["project", "name"]),
        ]

    def __str__(self):
        return self.name


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


from registry.distribution.models import *  # noqa: E402,F403  (OCI distribution records)
from registry.gc.models import *  # noqa: E402,F403  (garbage collection records)
from registry.robot_audit_models import *  # noqa: E402,F403  (robot accounts, audit log)
