"""Editing a repository: its properties, units, archiving and renaming, applied in
Gitea's order; its topics; who may edit them (require_repo_admin).
"""

import re
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from codehost import git, names
from codehost.access import Access, Actor
from codehost.errors import Forbidden, Invalid, NotFound
from codehost.models import (
    PULL_DEFAULTS,
    TRACKER_DEFAULTS,
    OpType,
    RepoRedirect,
    Repository,
    UnitType,
)
from codehost.services.activity import record_activity
from codehost.services.locks import lock_repository, locked_name


@dataclass
class RepoEdit:
    """EditRepoOption; None = not provided."""

    name: str | None = None
    description: str | None = None
    website: str | None = None
    private: bool | None = None
    template: bool | None = None
    default_branch: str | None = None
    has_issues: bool | None = None
    internal_tracker: dict | None = None
    external_tracker: dict | None = None
    has_wiki: bool | None = None
    external_wiki: dict | None = None
    has_pull_requests: bool | None = None
    pull_flags: dict | None = None
    has_projects: bool | None = None
    projects_mode: str | None = None
    has_releases: bool | None = None
    has_packages: bool | None = None
    has_actions: bool | None = None
    has_code: bool | None = None
    archived: bool | None = None


# Gitea's reqRepoAdmin: a repository's settings, topics and collaborators are for its
# owner, a site admin, or a collaborator or team with admin access.
REPO_ADMIN_REQUIRED = "user should be an owner or a collaborator with admin write of a repository"


def require_repo_admin(access: Access) -> None:
    """`access` is the actor's on the repository (access.repo_access)."""
    if not access.is_admin:
        raise Forbidden(REPO_ADMIN_REQUIRED)


TOPIC_PATTERN = r"^[a-z0-9][-.a-z0-9]*$"


def set_topics(repo: Repository, topics: list[str]) -> list[str]:
    """Replace the topics; invalid ones are returned (Gitea answers 422 listing them)."""
    # A dict keeps the order and finds a repeat at once: a list made a body of 100,000
    # topics cost minutes of a web thread.
    cleaned = {}
    invalid = []
    for topic in topics:
        topic = str(topic).strip().lower()
        if not topic:
            continue
        if len(topic) > 35 or not re.match(TOPIC_PATTERN, topic):
            invalid.append(topic)
        else:
            cleaned[topic] = None
    if invalid:
        return invalid
    if len(cleaned) > 25:
        raise Invalid("Exceeding maximum number of topics per repo")
    repo.topics = list(cleaned)
    with transaction.atomic():
        lock_repository(repo)
        repo.save(update_fields=["topics", "topics_index", "updated_at"])
    return []


MERGE_STYLES = {"merge", "rebase", "rebase-merge", "squash", "fast-forward-only", "manually-merged"}


# What an edit's basic step writes: never what a push or a finishing migration sets
# meanwhile (status, emptiness, size), which a full save would put back as it was read,
# nor the name, which only a rename writes (under the row's lock, with the directory).
BASIC_FIELDS = [
    "description", "website", "is_template", "private", "default_branch", "updated_at",
]  # fmt: skip
RENAME_FIELDS = ["name", "lower_name", "updated_at"]


def edit_repo(actor: Actor, repo: Repository, edit: RepoEdit) -> Repository:
    """Apply in Gitea's order: basic properties, units, archived. Each step is saved on its
    own, so a failure stops the rest and earlier changes stay (as in Gitea)."""
    if edit.name is not None and edit.name != repo.name:
        # A case-only change too: it changes the display name alone (same directory).
        rename_repo(actor, repo, edit.name)
    _apply_basic(actor, repo, edit)
    _save(repo, BASIC_FIELDS)
    _apply_units(repo, edit)
    _save(repo, ["units", "updated_at"])
    if edit.archived is not None:
        if repo.is_mirror:
            raise Invalid("repo is a mirror, cannot archive/un-archive")
        if edit.archived != repo.is_archived:
            repo.is_archived = edit.archived
            repo.archived_at = timezone.now() if edit.archived else None
            _save(repo, ["is_archived", "archived_at", "updated_at"])
    return repo


def _save(repo: Repository, fields: list[str]) -> None:
    """One step's fields; NotFound when a concurrent deletion took the repository (Django's
    save then raises DatabaseError: no row to update)."""
    try:
        repo.save(update_fields=fields)
    except DatabaseError:
        if Repository.objects.filter(pk=repo.pk).exists():
            raise
        raise NotFound() from None


def _apply_basic(actor: Actor, repo: Repository, edit: RepoEdit) -> None:
    if edit.description is not None:
        repo.description = edit.description
    if edit.website is not None:
        repo.website = edit.website
    if edit.template is not None:
        repo.is_template = edit.template
    if edit.private is not None:
        private = edit.private
        if repo.is_fork and repo.parent is not None:
            private = repo.parent.private
        if settings.CODEHOST_FORCE_PRIVATE and repo.private and not private and not actor.is_admin:
            raise Invalid("cannot change private repository to public")
        repo.private = private
    if edit.default_branch:
        path = git.repo_path(repo.owner.name, repo.name)
        if repo.is_empty or f"refs/heads/{edit.default_branch}" in git.refs(path):
            repo.default_branch = edit.default_branch
            if not repo.is_empty:
                git.set_default_branch(path, edit.default_branch)


def _apply_units(repo: Repository, edit: RepoEdit) -> None:
    units = dict(repo.units)
    if edit.has_issues is True:
        if edit.external_tracker is not None:
            tracker = edit.external_tracker
            url = tracker.get("external_tracker_url") or ""
            if not is_external_url(url):
                raise Invalid("External tracker URL not valid")
            fmt = tracker.get("external_tracker_format") or ""
            if fmt and not is_tracker_format(fmt):
                raise Invalid("External tracker URL format not valid")
            units.pop(UnitType.ISSUES.label, None)
            units[UnitType.EXT_ISSUES.label] = {
                "external_tracker_url": url,
                "external_tracker_format": fmt,
                "external_tracker_style": tracker.get("external_tracker_style") or "numeric",
                "external_tracker_regexp_pattern": tracker.get("external_tracker_regexp_pattern")
                or "",
            }
        else:
            current = units.get(UnitType.ISSUES.label) or TRACKER_DEFAULTS
            config = {**TRACKER_DEFAULTS, **current}
            for key, value in (edit.internal_tracker or {}).items():
                if key in TRACKER_DEFAULTS and value is not None:
                    config[key] = bool(value)
            units.pop(UnitType.EXT_ISSUES.label, None)
            units[UnitType.ISSUES.label] = config
    elif edit.has_issues is False:
        units.pop(UnitType.ISSUES.label, None)
        units.pop(UnitType.EXT_ISSUES.label, None)
    if edit.has_wiki is True:
        if edit.external_wiki is not None:
            url = edit.external_wiki.get("external_wiki_url") or ""
            if not is_external_url(url):
                raise Invalid("Invalid external wiki URL")
            units.pop(UnitType.WIKI.label, None)
            units[UnitType.EXT_WIKI.label] = {"external_wiki_url": url}
        else:
            units.pop(UnitType.EXT_WIKI.label, None)
            units[UnitType.WIKI.label] = {}
    elif edit.has_wiki is False:
        units.pop(UnitType.WIKI.label, None)
        units.pop(UnitType.EXT_WIKI.label, None)
    pulls_key = UnitType.PULLS.label
    if edit.has_pull_requests is False:
        units.pop(pulls_key, None)
    elif edit.has_pull_requests is True or (edit.pull_flags and pulls_key in units):
        config = {**PULL_DEFAULTS, **(units.get(pulls_key) or {})}
        for key, value in (edit.pull_flags or {}).items():
            if key == "default_merge_style":
                if value not in MERGE_STYLES:
                    raise Invalid("[DefaultMergeStyle]: In")
                config[key] = value
            elif key in PULL_DEFAULTS:
                config[key] = bool(value)
        units[pulls_key] = config
    simple = {
        UnitType.CODE.label: edit.has_code,
        UnitType.RELEASES.label: edit.has_releases,
        UnitType.PACKAGES.label: edit.has_packages,
        UnitType.ACTIONS.label: edit.has_actions,
    }
    for key, enabled in simple.items():
        if enabled is True:
            units.setdefault(key, {})
        elif enabled is False:
            units.pop(key, None)
    if edit.has_projects is True or (edit.projects_mode and UnitType.PROJECTS.label in units):
        mode = edit.projects_mode or (units.get(UnitType.PROJECTS.label) or {}).get(
            "projects_mode", "all"
        )
        if mode not in ("repo", "owner", "all"):
            raise Invalid("[ProjectsMode]: In")
        units[UnitType.PROJECTS.label] = {"projects_mode": mode}
    elif edit.has_projects is False:
        units.pop(UnitType.PROJECTS.label, None)
    repo.units = units


def is_external_url(url: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def is_tracker_format(fmt: str) -> bool:
    """A tracker format is a URL whose placeholders are {user}, {repo}, {index}, {repo}."""
    import re

    if not is_external_url(fmt):
        return False
    placeholders = re.findall(r"{([^}]*)}", fmt)
    return all(p in ("user", "repo", "index") for p in placeholders)


def rename_repo(actor: Actor, repo: Repository, new_name: str) -> None:
    try:
        names.check_repo_name(new_name)
    except Invalid as exc:
        raise Invalid(f"ChangeRepositoryName: {exc.message}") from exc
    old_name = repo.name
    target = git.repo_path(repo.owner.name, new_name)
    clash = Repository.objects.filter(owner=repo.owner, lower_name=new_name.lower()).exclude(
        pk=repo.pk
    )
    if clash.exists():
        raise Invalid(f"repository already exists [uname: {repo.owner.name}, name: {new_name}]")
    moved = False
    try:
        with transaction.atomic():
            # The name as it is now, the row locked: renames of one repository take turns,
            # and a rename that went first has moved the directory already.
            current = locked_name(repo.pk)
            if current is None:
                raise NotFound()
            old_name = current
            source = git.repo_path(repo.owner.name, old_name)
            repo.name = new_name
            repo.save(update_fields=RENAME_FIELDS)
            if old_name.lower() == new_name.lower():
                return  # a rename that went first gave it this name already
            # A new name shadows any redirect that had it; the old name redirects here.
            RepoRedirect.objects.filter(owner=repo.owner, lower_name=new_name.lower()).delete()
            RepoRedirect.objects.update_or_create(
                owner=repo.owner, lower_name=old_name.lower(), defaults={"repo": repo}
            )
            if actor.owner is not None:
                record_activity(actor.owner, OpType.RENAME_REPO, repo, content=old_name)
            if source.exists():
                git.move(source, target)
                moved = True
    except IntegrityError as exc:
        repo.name = old_name
        if moved:
            git.move(target, source)
        raise Invalid(
            f"repository already exists [uname: {repo.owner.name}, name: {new_name}]"
        ) from exc
    except BaseException:
        repo.name = old_name
        if moved:
            git.move(target, source)
        raise
