"""Access modes and repository unit types: Gitea's numbering, shared by teams,
collaborations and repositories."""

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


__all__ = ["AccessMode", "UnitType"]
