"""Repositories: creation (record first, git after the commit, undone on failure),
forks, deletion, lookup through rename redirects, pushes. What a repository's admin
edits is in repo_settings (properties, topics) and collaborators.
"""

import contextlib
import json
import logging
import shutil
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from codehost import git, migration_notices, names, repo_init
from codehost.access import Access, Actor, can_see_owner, is_org_owner, repo_access
from codehost.errors import (
    FILES_EXIST,
    REPO_EXISTS,
    Conflict,
    Forbidden,
    InternalError,
    Invalid,
    NotFound,
)
from codehost.models import (
    PULL_DEFAULTS,
    AccessMode,
    Collaboration,
    MigrationTask,
    OpType,
    Owner,
    RepoRedirect,
    Repository,
    Star,
    Team,
    TeamMember,
    TeamRepo,
    UnitType,
    Visibility,
)
from codehost.services.activity import record_activity
from codehost.services.locks import locked_name
from codehost.services.teams import recount_team_repos
from config.kept import KeptInstances, arg

logger = logging.getLogger(__name__)


@dataclass
class RepoOptions:
    name: str
    description: str = ""
    private: bool = False
    auto_init: bool = False
    readme: str = ""
    gitignores: str = ""
    license: str = ""
    default_branch: str = ""
    template: bool = False


def creation_limit(owner: Owner) -> int:
    return (
        owner.max_repo_creation
        if owner.max_repo_creation >= 0
        else settings.CODEHOST_MAX_CREATION_LIMIT
    )


def can_create_in_org(actor: Actor, org: Owner) -> bool:
    if actor.is_admin:
        return True
    return TeamMember.objects.filter(
        team__org=org, team__can_create_org_repo=True, user=actor.owner
    ).exists()


def personal_namespace(actor: Actor) -> Owner:
    """Where POST /user/repos creates: the caller's own namespace, never an organization."""
    if actor.owner.is_organization:
        raise Invalid("not allowed creating repository for organization")
    return actor.owner


def org_for_new_repo(actor: Actor, name: str) -> Owner:
    """The organization POST /orgs/{org}/repos creates in. As Gitea, an unknown name is bad
    input rather than a missing resource, one the caller cannot see stays hidden, and only
    site admins and members of a team allowed to create may create there."""
    org = Owner.objects.filter(lower_name=name.lower()).first()
    if org is None or not org.is_organization:
        raise Invalid(f"org does not exist [name: {name}]")
    if not can_see_owner(actor, org):
        raise NotFound()
    if not can_create_in_org(actor, org):
        raise Forbidden("User is not allowed to create repositories in this organization.")
    return org


def create_repo(actor: Actor, owner: Owner, options: RepoOptions) -> Repository:
    """Create the record, then the bare git repository; nothing is left behind on failure."""
    names.check_repo_name(options.name)
    if options.auto_init and not options.readme:
        options.readme = "Default"
    if options.auto_init:
        repo_init.check_options(options.readme, options.gitignores, options.license)
    limit = creation_limit(owner)
    if not actor.is_admin and limit >= 0 and owner.num_repos >= limit:
        raise Forbidden(f"user has reached maximum limit of repositories [limit: {limit}]")
    if Repository.objects.filter(owner=owner, lower_name=options.name.lower()).exists():
        raise Conflict(REPO_EXISTS)
    branch = options.default_branch or settings.CODEHOST_DEFAULT_BRANCH
    try:
        with transaction.atomic():
            repo = Repository.objects.create(
                owner=owner,
                name=options.name,
                description=options.description,
                private=options.private or settings.CODEHOST_FORCE_PRIVATE,
                is_template=options.template,
                default_branch=branch,
                num_watches=1,
            )
            after_repo_created(repo, owner, actor)
            if actor.owner is not None:
                record_activity(actor.owner, OpType.CREATE_REPO, repo)
    except IntegrityError as exc:
        raise Conflict(REPO_EXISTS) from exc
    # Git runs after the commit, never holding the database's locks; the committed name
    # keeps a second creation away from the directory meanwhile.
    with _git_work_or_undo(repo, found=("is_empty", "size")) as path:
        git.init_bare(path, branch)
        if options.auto_init:
            files = repo_init.initial_files(
                repo_name=repo.name,
                description=repo.description,
                owner=owner.full_name or owner.name,
                readme=options.readme,
                gitignores=options.gitignores,
                license_name=options.license,
            )
            doer = actor.owner or owner
            git.initial_commit(path, branch, files, (doer.name, _email_of(doer)))
            repo.is_empty = False
            repo.size = git.size(path)
    logger.info("repository created: %s", repo.full_name)
    return repo


class _RecordGone(Exception):
    """The repository was deleted while its directory was being made."""


# Where a new repository's directory is made before it moves into place (beside the
# repositories: the move is a rename within one filesystem).
CREATING_DIR = ".creating"


@contextlib.contextmanager
def _git_work_or_undo(repo: Repository, found: tuple[str, ...]):
    """Around the git work that fills a just-committed repository record. It runs in a
    staging directory, which then moves into place under the row's lock at the name the
    record has by then (as a finished migration does): a rename meanwhile found no
    directory to move, a deletion none to remove, so neither fails the git work or leaves a
    directory behind. The `found` fields (set by the work) are saved with the move. On any
    failure the record goes, and the staging with it; a deletion meanwhile is NotFound;
    files already where the repository goes are somebody else's (FILES_EXIST), left alone.
    """
    staging = git.root() / CREATING_DIR / f"{repo.pk}-{uuid.uuid4().hex}.git"
    try:
        if git.repo_path(repo.owner.name, repo.name).exists():
            raise FileExistsError(repo.full_name)
        yield staging
        with transaction.atomic():
            current = locked_name(repo.pk)
            if current is None:
                raise _RecordGone
            try:
                git.move(staging, git.repo_path(repo.owner.name, current))
            except git.GitError as exc:
                raise FileExistsError(current) from exc
            Repository.objects.filter(pk=repo.pk).update(**{f: getattr(repo, f) for f in found})
            repo.name = current
    except BaseException as exc:
        # Not git.delete: the staging folder stays for the creations under way.
        shutil.rmtree(staging, ignore_errors=True)
        theirs = isinstance(exc, FileExistsError)
        with contextlib.suppress(Repository.DoesNotExist):
            delete_repo(Repository.objects.select_related("owner").get(pk=repo.pk),
                        remove_directory=not theirs)  # fmt: skip
        if theirs:
            raise Conflict(FILES_EXIST) from exc
        if isinstance(exc, _RecordGone):
            raise NotFound() from exc
        raise


def _email_of(owner: Owner) -> str:
    return owner.email or f"{owner.lower_name}@noreply.localhost"


def after_repo_created(repo: Repository, owner: Owner, creator: Actor | None = None) -> None:
    """Counters and links of a new repository. In an organization, a `creator` its teams
    do not make an admin of it (a team that may create repositories but holds only some)
    becomes an admin collaborator, as Gitea's CreateRepositoryByExample: else a private
    repository would be lost to its creator at once. Migrations into an organization are
    for its owners and site admins, admins already."""
    Owner.objects.filter(pk=owner.pk).update(num_repos=F("num_repos") + 1)
    if owner.is_organization:
        teams = list(
            Team.objects.filter(org=owner, includes_all_repositories=True).values_list(
                "pk", flat=True
            )
        )
        TeamRepo.objects.bulk_create([TeamRepo(team_id=team, repo=repo) for team in teams])
        Team.objects.filter(pk__in=teams).update(num_repos=F("num_repos") + 1)
        if creator is not None and creator.signed_in and not repo_access(creator, repo).is_admin:
            Collaboration.objects.create(
                repo=repo, user=creator.owner, access_mode=AccessMode.ADMIN
            )


# A repository by its path, with its owner and its parent's (kept: see config.kept).
REPO_NAMED = KeptInstances(
    Repository,
    ("owner", "parent", "parent__owner"),
    lambda repos: repos.filter(owner__lower_name=arg("owner"), lower_name=arg("name")),
)


def directory_of(repo_id: int):
    """The repository's directory under its current name (None once deleted)."""
    names = Repository.objects.filter(pk=repo_id).values_list("owner__name", "name").first()
    return git.repo_path(*names) if names else None


def resolve_repo(owner_name: str, repo_name: str) -> tuple[Repository, bool]:
    """(repository, reached through a rename redirect) or NotFound."""
    repo = REPO_NAMED.first(owner=owner_name.lower(), name=repo_name.lower())
    if repo is not None:
        return repo, False
    redirect = (
        RepoRedirect.objects.select_related("repo__owner", "repo__parent__owner")
        .filter(owner__lower_name=owner_name.lower(), lower_name=repo_name.lower())
        .first()
    )
    if redirect is None:
        raise NotFound()
    return redirect.repo, True


# The answer of a migration whose repository was deleted meanwhile (Gitea's migration
# then fails as its repository is gone: 500).
DELETED_WHILE_MIGRATING = "the repository was deleted while it was being migrated"


def delete_repo(repo: Repository, *, remove_directory: bool = True) -> None:
    with transaction.atomic():
        # Its migration's task first, then the repository: the order the worker and
        # fail_migration take their locks in, so that none waits on another in a circle.
        _end_migrations_of(repo)
        # The row as it is now, locked: a deletion that went first has counted it out
        # already (counting it twice would free a creation past the owner's limit), and
        # a rename that went first has moved its directory.
        name = locked_name(repo.pk)
        if name is None:
            return
        path = git.repo_path(repo.owner.name, name)
        team_ids = list(TeamRepo.objects.filter(repo=repo).values_list("team_id", flat=True))
        stargazers = list(Star.objects.filter(repo=repo).values_list("user_id", flat=True))
        # The row first (its trigger updates the owner's kept count), then the owner's and
        # the parent's counters: the order a creation or a fork takes them in (PostgreSQL
        # found deadlocks between a deletion and a creation in one owner otherwise).
        repo.delete()
        Owner.objects.filter(pk=repo.owner_id).update(num_repos=F("num_repos") - 1)
        # Its stars went with it: so does each one from its user's count (as Gitea does).
        Owner.objects.filter(pk__in=stargazers).update(num_stars=F("num_stars") - 1)
        if repo.parent_id:
            Repository.objects.filter(pk=repo.parent_id).update(num_forks=F("num_forks") - 1)
        recount_team_repos(team_ids)
        if remove_directory:
            transaction.on_commit(lambda: git.delete(path))


def _end_migrations_of(repo: Repository) -> None:
    """A migration in flight fails with its repository: the caller waiting on it is
    answered at once (not when its wait runs out, holding a waiting slot meanwhile), and
    the worker, finding it failed, drops its clone."""
    ended = list(
        MigrationTask.objects.select_for_update()
        .filter(repo=repo, status__in=[MigrationTask.Status.QUEUED, MigrationTask.Status.RUNNING])
        .values_list("pk", flat=True)
    )
    MigrationTask.objects.filter(pk__in=ended).update(
        status=MigrationTask.Status.FAILED,
        error_code=InternalError.code,
        error=DELETED_WHILE_MIGRATING,
        finished=timezone.now(),
    )
    for task_id in ended:
        transaction.on_commit(
            lambda task_id=task_id: migration_notices.announce(task_id, MigrationTask.Status.FAILED)
        )


def delete_repo_as(actor: Actor, repo: Repository, access: Access) -> None:
    """DELETE /repos/{owner}/{repo}: its owner or a site admin, and in an organization
    only an owner of the organization (`access` is the actor's on `repo`)."""
    if access.mode < AccessMode.OWNER and not actor.is_admin:
        raise Forbidden("user should be the owner of the repo")
    if repo.owner.is_organization and not (actor.is_admin or is_org_owner(actor, repo.owner)):
        raise Forbidden("Given user is not owner of organization.")
    delete_repo(repo)


def fork_repo(actor: Actor, source: Repository, owner: Owner, name: str) -> Repository:
    # Gitea's reqRepoReader(unit.TypeCode): seeing the repository (an issues-only team,
    # say) is not enough, a fork is a copy of the code.
    if not repo_access(actor, source).can_read_code:
        raise Forbidden(
            "user should have specific read permission or be a repo admin or a site admin"
        )
    names.check_repo_name(name)
    if owner.is_organization and not can_create_in_org(actor, owner):
        raise Forbidden("User is not allowed to create repositories in this organization.")
    if Repository.objects.filter(owner=owner, lower_name=name.lower()).exists():
        raise Conflict(REPO_EXISTS)
    if source.owner_id == owner.pk:
        raise Conflict(REPO_EXISTS)
    try:
        with transaction.atomic():
            repo = Repository.objects.create(
                owner=owner,
                name=name,
                description=source.description,
                # Gitea's ForkRepository: the fork of any repository of a private
                # organization (or user) is private, else it would publish that code.
                private=source.private or source.owner.visibility == Visibility.PRIVATE,
                is_fork=True,
                parent=source,
                default_branch=source.default_branch,
                is_empty=source.is_empty,
                num_watches=1,
                units={
                    UnitType.CODE.label: {},
                    UnitType.PULLS.label: dict(PULL_DEFAULTS),
                },
            )
            after_repo_created(repo, owner, actor)
            Repository.objects.filter(pk=source.pk).update(num_forks=F("num_forks") + 1)
    except IntegrityError as exc:
        raise Conflict(REPO_EXISTS) from exc
    # The clone runs after the commit (a clone of a large repository must not hold the
    # database's write lock); a failed clone takes the record back out.
    with _git_work_or_undo(repo, found=("size",)) as path:
        git.fork(git.repo_path(source.owner.name, source.name), path)
        repo.size = git.size(path)
    return repo


def record_push(repo_id: int, actor: Owner | None, before: dict, after: dict) -> None:
    """After a push: activity per changed ref, then updated_at, size and empty."""
    repo = Repository.objects.select_related("owner").filter(pk=repo_id).first()
    if repo is None:
        return
    path = git.repo_path(repo.owner.name, repo.name)
    if actor is not None:
        for ref in sorted(set(before) | set(after)):
            old, new = before.get(ref), after.get(ref)
            if old == new:
                continue
            is_tag = ref.startswith("refs/tags/")
            if new is None:
                op = OpType.DELETE_TAG if is_tag else OpType.DELETE_BRANCH
            else:
                op = OpType.PUSH_TAG if is_tag else OpType.COMMIT_REPO
            content = "" if is_tag or new is None else json.dumps(
                {"Commits": [], "HeadCommit": None, "CompareURL": "", "Len": 0,
                 "Before": old or "0" * 40, "After": new}
            )  # fmt: skip
            record_activity(actor, op, repo, ref_name=ref, content=content)
    repo.is_empty = not after
    repo.size = git.size(path)
    repo.save(update_fields=["is_empty", "size", "updated_at"])
