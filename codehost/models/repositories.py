"""Repositories and what hangs off them: rename redirects, collaborators, stars."""

from django.db import models

from codehost.models.accounts import Owner
from codehost.models.modes import AccessMode


class ServiceType(models.IntegerChoices):
    """Gitea's migration service numbering (`original_service_type`)."""

    NOT_MIGRATED = 0, "not migrated"
    PLAIN_GIT = 1, "git"
    GITHUB = 2, "github"
    GITEA = 3, "gitea"
    GITLAB = 4, "gitlab"
    GOGS = 5, "gogs"
    ONEDEV = 6, "onedev"
    GITBUCKET = 7, "gitbucket"
    CODEBASE = 8, "codebase"
    CODECOMMIT = 9, "codecommit"


# Gitea's defaults for the issue tracker and pull request units.
TRACKER_DEFAULTS = {
    "enable_time_tracker": True,
    "allow_only_contributors_to_track_time": True,
    "enable_issue_dependencies": True,
}
PULL_DEFAULTS = {
    "ignore_whitespace_conflicts": False,
    "allow_merge_commits": True,
    "allow_rebase": True,
    "allow_rebase_explicit": True,
    "allow_squash_merge": True,
    "allow_fast_forward_only_merge": True,
    "allow_rebase_update": True,
    "allow_manual_merge": False,
    "autodetect_manual_merge": False,
    "default_delete_branch_after_merge": False,
    "default_merge_style": "merge",
    "default_allow_maintainer_edit": True,
}


def default_repo_units() -> dict:
    """Units of a new repository: {wire key: config}; Gitea's defaults."""
    return {
        "repo.code": {},
        "repo.issues": dict(TRACKER_DEFAULTS),
        "repo.pulls": dict(PULL_DEFAULTS),
        "repo.releases": {},
        "repo.wiki": {},
        "repo.projects": {"projects_mode": "all"},
        "repo.packages": {},
        "repo.actions": {},
    }


class Repository(models.Model):
    class Status(models.TextChoices):
        READY = "ready"
        BEING_MIGRATED = "being_migrated"

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="repositories")
    name = models.CharField(max_length=100)
    lower_name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    website = models.CharField(max_length=1024, blank=True)
    private = models.BooleanField(default=False)
    is_fork = models.BooleanField(default=False)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks"
    )
    is_template = models.BooleanField(default=False)
    is_archived = models.BooleanField(default=False)
    archived_at = models.DateTimeField(null=True, blank=True)
    is_empty = models.BooleanField(default=True)
    # Bytes on disk; the wire shows KiB.
    size = models.BigIntegerField(default=0)
    default_branch = models.CharField(max_length=255, default="main")
    num_stars = models.IntegerField(default=0)
    num_forks = models.IntegerField(default=0)
    num_watches = models.IntegerField(default=0)
    topics = models.JSONField(default=list, blank=True)
    # ",topic1,topic2," so an exact topic is a substring match on every database.
    topics_index = models.TextField(blank=True, default="")
    # {unit wire key: config}; a unit is enabled when its key is present.
    units = models.JSONField(default=default_repo_units, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.READY)
    is_mirror = models.BooleanField(default=False)
    # Migration source, credentials stripped.
    original_url = models.CharField(max_length=2048, blank=True)
    original_service_type = models.IntegerField(
        choices=ServiceType.choices, default=ServiceType.NOT_MIGRATED
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        verbose_name_plural = "repositories"
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "lower_name"], name="codehost_repo_name_unique"
            )
        ]
        indexes = [
            models.Index(fields=["lower_name"]),
            models.Index(fields=["size"]),
            # Counting what a caller may see reads only these columns: an index-only scan.
            models.Index(
                fields=["owner", "private"], include=["id"], name="codehost_repo_visible_idx"
            ),
        ]

    def __str__(self):
        return self.full_name

    def save(self, *args, **kwargs):
        self.lower_name = self.name.lower()
        self.topics_index = "".join(f",{topic}" for topic in self.topics) + ","
        super().save(*args, **kwargs)

    @property
    def full_name(self) -> str:
        return f"{self.owner.name}/{self.name}"


class OwnerRepositoryCount(models.Model):
    """How many public or private repositories an owner holds, kept by database triggers
    on every insert, delete, transfer and visibility change of a repository (migration
    0009); never written by the ORM. A search without filters counts what the caller may
    see from these rows (codehost.search.kept_total) instead of from every repository."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
    private = models.BooleanField()
    repository_count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "private"], name="codehost_repo_count_unique")
        ]

    def __str__(self):
        return (
            f"{self.owner_id} ({'private' if self.private else 'public'}): {self.repository_count}"
        )


class RepoRedirect(models.Model):
    """The old (owner, name) of a renamed repository; requests there are redirected."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="repo_redirects")
    lower_name = models.CharField(max_length=100)
    repo = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="redirects")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "lower_name"], name="codehost_redirect_unique")
        ]

    def __str__(self):
        return f"{self.owner}/{self.lower_name} -> {self.repo_id}"


class Collaboration(models.Model):
    repo = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="collaborations")
    user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="collaborations")
    access_mode = models.IntegerField(choices=AccessMode.choices, default=AccessMode.WRITE)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["repo", "user"], name="codehost_collab_unique")
        ]

    def __str__(self):
        return f"{self.user} on {self.repo}"


class Star(models.Model):
    user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="stars")
    repo = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="stars")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "repo"], name="codehost_star_unique")
        ]

    def __str__(self):
        return f"{self.user} stars {self.repo}"


__all__ = [
    "PULL_DEFAULTS",
    "TRACKER_DEFAULTS",
    "Collaboration",
    "OwnerRepositoryCount",
    "RepoRedirect",
    "Repository",
    "ServiceType",
    "Star",
    "default_repo_units",
]
