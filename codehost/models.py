"""Code hosting records: owners (users and organizations), teams, repositories and what hangs
off them. Numbering follows Gitea where it shows on the wire (access modes, unit types,
activity op types, migration service types).
"""

from django.conf import settings
from django.db import models


class AccessMode(models.IntegerChoices):
    NONE = 0, "none"
    READ = 1, "read"
    WRITE = 2, "write"
    ADMIN = 3, "admin"
    OWNER = 4, "owner"


class UnitType(models.IntegerChoices):
    """Repository unit types; labels are their wire keys."""

    CODE = 1, "repo.code"
    ISSUES = 2, "repo.issues"
    PULLS = 3, "repo.pulls"
    RELEASES = 4, "repo.releases"
    WIKI = 5, "repo.wiki"
    EXT_WIKI = 6, "repo.ext_wiki"
    EXT_ISSUES = 7, "repo.ext_issues"
    PROJECTS = 8, "repo.projects"
    PACKAGES = 9, "repo.packages"
    ACTIONS = 10, "repo.actions"


class Visibility(models.TextChoices):
    PUBLIC = "public"
    LIMITED = "limited"
    PRIVATE = "private"


class Owner(models.Model):
    """A namespace that owns repositories: one per Django user, or an organization.

    Gitea keeps users and organizations in one table, so their ids never collide; the
    wire `id` of a User or an Organization is this row's id.
    """

    class Kind(models.TextChoices):
        USER = "user"
        ORGANIZATION = "organization"

    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.USER)
    # Set for kind=user only.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="codehost_owner",
    )
    name = models.CharField(max_length=40)
    lower_name = models.CharField(max_length=40, unique=True)
    full_name = models.CharField(max_length=100, blank=True)
    email = models.CharField(max_length=255, blank=True)
    description = models.CharField(max_length=255, blank=True)
    website = models.CharField(max_length=255, blank=True)
    location = models.CharField(max_length=50, blank=True)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    repo_admin_change_team_access = models.BooleanField(default=False)
    # Gitea refuses every API call of such a user until the password is changed (the site
    # admin clears it); POST /admin/users sets it unless told otherwise.
    must_change_password = models.BooleanField(default=False)
    # Repositories this owner may create; -1 = the site's CODEHOST_MAX_CREATION_LIMIT.
    max_repo_creation = models.IntegerField(default=-1)
    num_repos = models.IntegerField(default=0)
    # Repositories this user starred (the wire's starred_repos_count), kept as a counter.
    num_stars = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["kind", "lower_name"])]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.lower_name = self.name.lower()
        super().save(*args, **kwargs)

    @property
    def is_organization(self) -> bool:
        return self.kind == self.Kind.ORGANIZATION


class OrgMembership(models.Model):
    org = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="org_memberships")
    is_public = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["org", "user"], name="codehost_orgmember_unique")
        ]

    def __str__(self):
        return f"{self.user} in {self.org}"


class Team(models.Model):
    OWNERS_NAME = "Owners"

    org = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=255)
    lower_name = models.CharField(max_length=255)
    description = models.CharField(max_length=255, blank=True)
    access_mode = models.IntegerField(choices=AccessMode.choices, default=AccessMode.NONE)
    includes_all_repositories = models.BooleanField(default=False)
    can_create_org_repo = models.BooleanField(default=False)
    # {unit wire key: AccessMode value}; absent key = no access to that unit.
    units = models.JSONField(default=dict, blank=True)
    # Stored counters, as Gitea: the list endpoints' X-Total-Count reads them.
    num_members = models.IntegerField(default=0)
    num_repos = models.IntegerField(default=0)
    members = models.ManyToManyField(Owner, through="TeamMember", related_name="member_teams")
    repos = models.ManyToManyField("Repository", through="TeamRepo", related_name="teams")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["org", "lower_name"], name="codehost_team_name_unique")
        ]

    def __str__(self):
        return f"{self.org}/{self.name}"

    def save(self, *args, **kwargs):
        self.lower_name = self.name.lower()
        super().save(*args, **kwargs)

    @property
    def is_owner_team(self) -> bool:
        return self.access_mode == AccessMode.OWNER


class TeamMember(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE)
    user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="team_memberships")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="codehost_teammember_unique")
        ]

    def __str__(self):
        return f"{self.user} in {self.team}"


class TeamRepo(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE)
    repo = models.ForeignKey("Repository", on_delete=models.CASCADE, related_name="team_links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "repo"], name="codehost_teamrepo_unique")
        ]

    def __str__(self):
        return f"{self.repo} in {self.team}"


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


class UserBlock(models.Model):
    blocker = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="blocks")
    blockee = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="blocked_by")
    note = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blockee"], name="codehost_block_unique")
        ]

    def __str__(self):
        return f"{self.blocker} blocks {self.blockee}"


class AccessToken(models.Model):
    """An API token; only its sha256 (config.auth.hash_token) and last eight chars are kept."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="codehost_tokens"
    )
    name = models.CharField(max_length=255)
    token_hash = models.CharField(max_length=64, unique=True)
    token_last_eight = models.CharField(max_length=8)
    # Normalized scope names, comma separated (Gitea stores them the same way).
    scopes = models.CharField(max_length=1024)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="codehost_token_name_unique")
        ]

    def __str__(self):
        return f"{self.user} / {self.name}"

    @property
    def scope_list(self) -> list[str]:
        return [scope for scope in self.scopes.split(",") if scope]


class OpType(models.IntegerChoices):
    """Gitea's activity op types; labels are their wire names."""

    CREATE_REPO = 1, "create_repo"
    RENAME_REPO = 2, "rename_repo"
    STAR_REPO = 3, "star_repo"
    WATCH_REPO = 4, "watch_repo"
    COMMIT_REPO = 5, "commit_repo"
    CREATE_ISSUE = 6, "create_issue"
    CREATE_PULL_REQUEST = 7, "create_pull_request"
    TRANSFER_REPO = 8, "transfer_repo"
    PUSH_TAG = 9, "push_tag"
    COMMENT_ISSUE = 10, "comment_issue"
    MERGE_PULL_REQUEST = 11, "merge_pull_request"
    CLOSE_ISSUE = 12, "close_issue"
    REOPEN_ISSUE = 13, "reopen_issue"
    CLOSE_PULL_REQUEST = 14, "close_pull_request"
    REOPEN_PULL_REQUEST = 15, "reopen_pull_request"
    DELETE_TAG = 16, "delete_tag"
    DELETE_BRANCH = 17, "delete_branch"
    MIRROR_SYNC_PUSH = 18, "mirror_sync_push"
    MIRROR_SYNC_CREATE = 19, "mirror_sync_create"
    MIRROR_SYNC_DELETE = 20, "mirror_sync_delete"
    APPROVE_PULL_REQUEST = 21, "approve_pull_request"
    REJECT_PULL_REQUEST = 22, "reject_pull_request"
    COMMENT_PULL = 23, "comment_pull"
    PUBLISH_RELEASE = 24, "publish_release"
    PULL_REVIEW_DISMISSED = 25, "pull_review_dismissed"
    PULL_REQUEST_READY_FOR_REVIEW = 26, "pull_request_ready_for_review"
    AUTO_MERGE_PULL_REQUEST = 27, "auto_merge_pull_request"


class Activity(models.Model):
    """One feed entry, stored once per receiver (`user`): the actor and the owning org."""

    user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="feed")
    op_type = models.IntegerField(choices=OpType.choices)
    act_user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="actions")
    # Deleting a repository deletes its entries, as Gitea does.
    repo = models.ForeignKey(
        Repository, null=True, blank=True, on_delete=models.CASCADE, related_name="activities"
    )
    ref_name = models.CharField(max_length=255, blank=True)
    is_private = models.BooleanField(default=False)
    content = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "activities"
        indexes = [models.Index(fields=["user", "-created"])]

    def __str__(self):
        return f"{self.get_op_type_display()} by {self.act_user_id}"


# --- migrations and pull mirrors ------------------------------------------------------------
from codehost.migration_models import MigrationTask, Mirror  # noqa: E402, F401
