"""Owners (users and organizations in one table, as Gitea), their API tokens and the
blocks between users."""

from django.conf import settings
from django.db import models
from django.db.models import Q


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

    @classmethod
    def between(cls, a: Owner, b: Owner) -> bool:
        """Whether either of the two blocks the other."""
        return cls.objects.filter(Q(blocker=a, blockee=b) | Q(blocker=b, blockee=a)).exists()


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


__all__ = ["AccessToken", "Owner", "UserBlock", "Visibility"]
