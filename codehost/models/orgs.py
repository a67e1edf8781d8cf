"""Organization membership and teams: who is in which team, which repositories a team
reaches."""

from django.db import models

from codehost.models.accounts import Owner
from codehost.models.modes import AccessMode


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


__all__ = ["OrgMembership", "Team", "TeamMember", "TeamRepo"]
