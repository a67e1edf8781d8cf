"""Business rules of the code hosting service: organizations, teams, repositories.

Functions take explicit arguments (the acting `Actor` first where it matters), run in
atomic blocks and raise the domain errors of codehost.errors with Gitea's statuses.
"""

import contextlib
import json
import logging
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from codehost import git, names, repo_init
from codehost.access import Actor, repo_access
from codehost.errors import (
    FILES_EXIST,
    REPO_EXISTS,
    Conflict,
    Forbidden,
    InternalError,
    Invalid,
    NotFound,
    Rejected,
)
from codehost.models import (
    PULL_DEFAULTS,
    TRACKER_DEFAULTS,
    AccessMode,
    AccessToken,
    Activity,
    Collaboration,
    OpType,
    OrgMembership,
    Owner,
    RepoRedirect,
    Repository,
    Star,
    Team,
    TeamMember,
    TeamRepo,
    UnitType,
    UserBlock,
    Visibility,
)
from codehost.signals import ensure_user_owner
from config.auth import hash_token

logger = logging.getLogger(__name__)

EXTERNAL_UNITS = {UnitType.EXT_ISSUES.label, UnitType.EXT_WIKI.label}
UNIT_KEYS = {unit.label.lower(): unit.label for unit in UnitType}


# --- users and tokens -------------------------------------------------------------------


def create_user(
    *,
    username: str,
    email: str,
    password: str,
    full_name: str = "",
    visibility: str = "",
    must_change_password: bool = True,
) -> Owner:
    names.check_user_name(username, "UserName")
    if not password:
        raise Rejected("PasswordIsRequired")
    if len(password) < 8:
        raise Rejected("PasswordIsRequired")
    User = get_user_model()
    if Owner.objects.filter(lower_name=username.lower()).exists():
        raise Invalid(f"user already exists [name: {username}]")
    if User.objects.filter(email__iexact=email).exists():
        raise Invalid(f"e-mail already in use [email: {email}]")
    try:
        with transaction.atomic():
            user = User(username=username, email=email)
            user.set_password(password)
            user.save()
            owner = Owner.objects.get(user=user)
            owner.full_name = full_name
            owner.visibility = visibility or Visibility.PUBLIC
            owner.must_change_password = must_change_password
            owner.save()
    except IntegrityError as exc:
        raise Invalid(f"user already exists [name: {username}]") from exc
    return owner


SCOPE_CATEGORIES = [
    "activitypub", "admin", "misc", "notification", "organization", "package", "issue",
    "repository", "user",
]  # fmt: skip


PUBLIC_ONLY = "public-only"


def normalize_scopes(scopes: list[str]) -> list[str]:
    """Gitea's normalization: `all` swallows everything, write:X implies read:X."""
    if not scopes:
        raise Rejected("access token must have a scope")
    wanted = set()
    for raw in scopes:
        for scope in str(raw).split(","):
            scope = scope.strip()
            if not scope:
                continue
            level, _, category = scope.partition(":")
            valid = scope in ("all", PUBLIC_ONLY) or (
                level in ("read", "write") and category in SCOPE_CATEGORIES
            )
            if not valid:
                raise Rejected(f"invalid access token scope provided: {scope}")
            wanted.add(scope)
    if not wanted:
        raise Rejected("access token must have a scope")
    if "all" in wanted:
        return sorted({"all"} | ({PUBLIC_ONLY} & wanted))
    return sorted(s for s in wanted if not (s.startswith("read:") and f"write:{s[5:]}" in wanted))


def scopes_allow(scopes: list[str], categories: list[str], write: bool) -> bool:
    if "all" in scopes:
        return True
    for category in categories:
        needed = {f"write:{category}"} if write else {f"read:{category}", f"write:{category}"}
        if not needed & set(scopes):
            return False
    return True


def create_token(user, name: str, scopes: list[str]) -> tuple[AccessToken, str]:
    if not name:
        raise Invalid("[Name]: Required")
    normalized = normalize_scopes(scopes)
    if AccessToken.objects.filter(user=user, name=name).exists():
        raise Rejected("access token name has been used already")
    raw = secrets.token_hex(20)
    try:
        with transaction.atomic():
            token = AccessToken.objects.create(
                user=user,
                name=name,
                token_hash=hash_token(raw),
                token_last_eight=raw[-8:],
                scopes=",".join(normalized),
            )
    except IntegrityError as exc:
        raise Rejected("access token name has been used already") from exc
    return token, raw


def user_owner(user) -> Owner:
    """The namespace of a signed-in Django user (free when authentication loaded it)."""
    try:
        owner = user.codehost_owner
    except Owner.DoesNotExist:
        owner = ensure_user_owner(user)
    if owner is None:
        raise Forbidden("this account has no code hosting namespace")
    # Rendering the caller's own user object reads the account: it is this one.
    owner.user = user
    return owner


# --- blocks -------------------------------------------------------------------------------


def is_blocked(a: Owner, b: Owner) -> bool:
    """Whether either of the two blocks the other."""
    return UserBlock.objects.filter(Q(blocker=a, blockee=b) | Q(blocker=b, blockee=a)).exists()


def block_user(blocker: Owner, blockee: Owner, note: str = "") -> None:
    if blocker.pk == blockee.pk or blockee.is_organization:
        raise Rejected("user can not be blocked")
    with transaction.atomic():
        _, created = UserBlock.objects.get_or_create(
            blocker=blocker, blockee=blockee, defaults={"note": note}
        )
        if not created:
            raise Rejected("user is already blocked")
        # Blocking ends stars and collaborations between the two, as in Gitea.
        for star in Star.objects.filter(
            Q(user=blocker, repo__owner=blockee) | Q(user=blockee, repo__owner=blocker)
        ):
            unstar(star.user, star.repo)
        Collaboration.objects.filter(
            Q(user=blockee, repo__owner=blocker) | Q(user=blocker, repo__owner=blockee)
        ).delete()


def unblock_user(blocker: Owner, blockee: Owner) -> None:
    deleted, _ = UserBlock.objects.filter(blocker=blocker, blockee=blockee).delete()
    if not deleted:
        raise Rejected("user is not blocked")


# --- organizations ------------------------------------------------------------------------


@dataclass
class OrgOptions:
    username: str
    full_name: str = ""
    email: str = ""
    description: str = ""
    website: str = ""
    location: str = ""
    visibility: str = ""
    repo_admin_change_team_access: bool = False


def create_org(creator: Owner, options: OrgOptions) -> Owner:
    names.check_user_name(options.username, "UserName")
    if options.visibility and options.visibility not in Visibility.values:
        raise Invalid("[Visibility]: In")
    try:
        with transaction.atomic():
            org = Owner.objects.create(
                kind=Owner.Kind.ORGANIZATION,
                name=options.username,
                full_name=options.full_name,
                email=options.email,
                description=options.description,
                website=options.website,
                location=options.location,
                visibility=options.visibility or Visibility.PUBLIC,
                repo_admin_change_team_access=options.repo_admin_change_team_access,
            )
            owners = Team.objects.create(
                org=org,
                name=Team.OWNERS_NAME,
                access_mode=AccessMode.OWNER,
                includes_all_repositories=True,
                can_create_org_repo=True,
                units=admin_units(AccessMode.OWNER),
            )
            TeamMember.objects.create(team=owners, user=creator)
            owners.num_members = 1
            owners.save(update_fields=["num_members"])
            OrgMembership.objects.create(org=org, user=creator)
    except IntegrityError as exc:
        raise Invalid(f"user already exists [name: {options.username}]") from exc
    return org


# --- teams --------------------------------------------------------------------------------


def parse_team_mode(permission: str) -> int:
    """Team `permission` on input: only `admin` counts, read/write become none (unit teams)."""
    return AccessMode.ADMIN if permission == "admin" else AccessMode.NONE


def parse_unit_mode(permission: str) -> int:
    """An access mode for units, within read..write (`""` and unknown give none)."""
    return {"read": AccessMode.READ, "write": AccessMode.WRITE}.get(permission, AccessMode.NONE)


def parse_any_mode(permission: str) -> int:
    return {"read": AccessMode.READ, "write": AccessMode.WRITE, "admin": AccessMode.ADMIN}.get(
        permission, AccessMode.NONE
    )


def admin_units(mode: int) -> dict[str, int]:
    """Every unit at `mode`, the external ones at read (what Gitea stores for admin teams)."""
    return {
        unit.label: (AccessMode.READ if unit.label in EXTERNAL_UNITS else mode) for unit in UnitType
    }


def build_team_units(
    mode: int, permission: str, units: list[str] | None, units_map: dict | None
) -> dict[str, int] | None:
    """Units as team creation/edit builds them; None = no unit information given."""
    if mode >= AccessMode.ADMIN:
        return admin_units(mode)
    if units_map:
        return {
            UNIT_KEYS.get(str(key).lower(), str(key)): parse_any_mode(str(value))
            for key, value in units_map.items()
        }
    if units:
        unit_mode = parse_unit_mode(permission)
        known = [UNIT_KEYS[key.lower()] for key in units if key.lower() in UNIT_KEYS]
        return dict.fromkeys(known, unit_mode)
    return None


@dataclass
class TeamOptions:
    name: str | None = None
    description: str | None = None
    permission: str = ""
    includes_all_repositories: bool | None = None
    can_create_org_repo: bool | None = None
    units: list[str] | None = None
    units_map: dict | None = None


def _team_exists(org: Owner, name: str) -> Invalid:
    return Invalid(f"team already exists [org_id: {org.pk}, name: {name}]")


def create_team(org: Owner, options: TeamOptions, actor: Actor) -> Team:
    names.check_team_name(options.name or "")
    mode = parse_team_mode(options.permission)
    units = build_team_units(mode, options.permission, options.units, options.units_map)
    if units is None:
        raise InternalError("units permission should not be empty")
    if Team.objects.filter(org=org, lower_name=options.name.lower()).exists():
        raise _team_exists(org, options.name)
    try:
        with transaction.atomic():
            team = Team.objects.create(
                org=org,
                name=options.name,
                description=options.description or "",
                access_mode=mode,
                includes_all_repositories=bool(options.includes_all_repositories),
                can_create_org_repo=bool(options.can_create_org_repo),
                units=units,
            )
            if team.includes_all_repositories:
                _link_all_org_repos(team)
    except IntegrityError as exc:
        raise _team_exists(org, options.name) from exc
    return team


def _link_all_org_repos(team: Team) -> None:
    linked = set(TeamRepo.objects.filter(team=team).values_list("repo_id", flat=True))
    TeamRepo.objects.bulk_create(
        [
            TeamRepo(team=team, repo_id=repo_id)
            for repo_id in Repository.objects.filter(owner=team.org).values_list("pk", flat=True)
            if repo_id not in linked
        ]
    )
    _recount_team_repos([team.pk])


def _recount_team_repos(team_ids) -> None:
    for team_id in team_ids:
        Team.objects.filter(pk=team_id).update(
            num_repos=TeamRepo.objects.filter(team_id=team_id).count()
        )


def edit_team(team: Team, options: TeamOptions) -> Team:
    if options.name:
        names.check_team_name(options.name)
    with transaction.atomic():
        team = Team.objects.select_for_update().get(pk=team.pk)
        if options.can_create_org_repo is not None:
            team.can_create_org_repo = team.is_owner_team or options.can_create_org_repo
        if options.name:
            clash = Team.objects.filter(org=team.org, lower_name=options.name.lower()).exclude(
                pk=team.pk
            )
            if clash.exists():
                raise InternalError(
                    f"team already exists [org_id: {team.org_id}, name: {options.name}]"
                )
            team.name = options.name
        if options.description is not None:
            team.description = options.description
        switched_on = False
        if not team.is_owner_team and options.permission:
            team.access_mode = parse_team_mode(options.permission)
            if options.includes_all_repositories is not None:
                switched_on = (
                    options.includes_all_repositories and not team.includes_all_repositories
                )
                team.includes_all_repositories = options.includes_all_repositories
        if not team.is_owner_team:
            units = build_team_units(
                team.access_mode, options.permission, options.units, options.units_map
            )
            if units is not None:
                team.units = units
        try:
            with transaction.atomic():
                team.save()
        except IntegrityError as exc:
            raise InternalError(
                f"team already exists [org_id: {team.org_id}, name: {options.name}]"
            ) from exc
        if switched_on:
            _link_all_org_repos(team)
    return team


def delete_team(team: Team) -> None:
    with transaction.atomic():
        member_ids = list(TeamMember.objects.filter(team=team).values_list("user_id", flat=True))
        org = team.org
        team.delete()
        _drop_teamless_members(org, member_ids)


def _drop_teamless_members(org: Owner, user_ids: list[int]) -> None:
    """Every org member must be in a team: those left without one leave the org."""
    still = set(
        TeamMember.objects.filter(team__org=org, user_id__in=user_ids).values_list(
            "user_id", flat=True
        )
    )
    OrgMembership.objects.filter(org=org, user_id__in=set(user_ids) - still).delete()


def add_team_member(team: Team, user: Owner, actor: Actor) -> None:
    if user.is_organization:
        raise NotFound(f"user does not exist [name: {user.name}]")
    if is_blocked(user, team.org) or (actor.owner and is_blocked(user, actor.owner)):
        raise Forbidden("user is blocked by the organization or the doer")
    with transaction.atomic():
        _, created = TeamMember.objects.get_or_create(team=team, user=user)
        if created:
            Team.objects.filter(pk=team.pk).update(num_members=F("num_members") + 1)
            OrgMembership.objects.get_or_create(org=team.org, user=user)


def remove_team_member(team: Team, user: Owner) -> None:
    with transaction.atomic():
        team = Team.objects.select_for_update().get(pk=team.pk)
        membership = TeamMember.objects.filter(team=team, user=user).first()
        if membership is None:
            return
        if team.is_owner_team and team.num_members <= 1:
            raise InternalError(f"user is the last member of owner team [uid: {user.pk}]")
        membership.delete()
        Team.objects.filter(pk=team.pk).update(num_members=F("num_members") - 1)
        _drop_teamless_members(team.org, [user.pk])


def find_team_repo(team: Team, name: str) -> Repository:
    """A repository of the team's organization (the `{org}` path segment is ignored)."""
    repo = Repository.objects.filter(owner=team.org, lower_name=name.lower()).first()
    if repo is None:
        raise NotFound(f"repository does not exist [name: {name}]")
    return repo


def _require_repo_admin(actor: Actor, repo: Repository) -> None:
    if not repo_access(actor, repo).is_admin:
        raise Forbidden("Must have admin-level access to the repository")


def add_team_repo(team: Team, repo: Repository, actor: Actor) -> None:
    _require_repo_admin(actor, repo)
    with transaction.atomic():
        _, created = TeamRepo.objects.get_or_create(team=team, repo=repo)
        if created:
            Team.objects.filter(pk=team.pk).update(num_repos=F("num_repos") + 1)


def remove_team_repo(team: Team, repo: Repository, actor: Actor) -> None:
    _require_repo_admin(actor, repo)
    if team.includes_all_repositories:
        return
    with transaction.atomic():
        deleted, _ = TeamRepo.objects.filter(team=team, repo=repo).delete()
        if deleted:
            Team.objects.filter(pk=team.pk).update(num_repos=F("num_repos") - 1)


# --- activity -----------------------------------------------------------------------------


def record_activity(
    actor: Owner, op_type: int, repo: Repository, *, ref_name: str = "", content: str = ""
) -> None:
    """One entry per receiver: the actor, and the owning organization (or owning user)."""
    receivers = {actor.pk, repo.owner_id}
    Activity.objects.bulk_create(
        [
            Activity(
                user_id=receiver,
                op_type=op_type,
                act_user=actor,
                repo=repo,
                ref_name=ref_name,
                is_private=repo.private,
                content=content,
            )
            for receiver in receivers
        ]
    )


def team_feed(team: Team, date=None):
    """Entries received by the team's org about repositories the team can access."""
    feed = Activity.objects.filter(user=team.org, repo__team_links__team=team)
    if date is not None:
        feed = feed.filter(created__date=date)
    return feed.order_by("-created", "-pk")


# --- repositories -------------------------------------------------------------------------


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
            _after_repo_created(repo, owner)
            if actor.owner is not None:
                record_activity(actor.owner, OpType.CREATE_REPO, repo)
    except IntegrityError as exc:
        raise Conflict(REPO_EXISTS) from exc
    # Git runs after the commit, never holding the database's locks; the committed name
    # keeps a second creation away from the directory meanwhile.
    with _git_work_or_undo(repo) as path:
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
            _save_found(repo, ["is_empty", "size"])
    logger.info("repository created: %s", repo.full_name)
    return repo


class _RecordGone(Exception):
    """The repository was deleted while its directory was being made."""


@contextlib.contextmanager
def _git_work_or_undo(repo: Repository):
    """Around the git work that fills a just-committed repository record: on any failure
    the record goes, and the directory too unless it was somebody else's (FILES_EXIST)."""
    path = git.repo_path(repo.owner.name, repo.name)
    try:
        if path.exists():
            raise FileExistsError(path)
        yield path
        if not Repository.objects.filter(pk=repo.pk).exists():
            raise _RecordGone
    except BaseException as exc:
        theirs = isinstance(exc, FileExistsError)
        if not theirs:
            git.delete(path)
        with contextlib.suppress(Repository.DoesNotExist):
            delete_repo(Repository.objects.select_related("owner").get(pk=repo.pk),
                        remove_directory=False)  # fmt: skip
        if theirs:
            raise Conflict(FILES_EXIST) from exc
        if isinstance(exc, _RecordGone):
            raise NotFound() from exc
        raise


def _save_found(repo: Repository, fields: list[str]) -> None:
    if not Repository.objects.filter(pk=repo.pk).update(**{f: getattr(repo, f) for f in fields}):
        raise _RecordGone


def _email_of(owner: Owner) -> str:
    return owner.email or f"{owner.lower_name}@noreply.localhost"


def _after_repo_created(repo: Repository, owner: Owner) -> None:
    Owner.objects.filter(pk=owner.pk).update(num_repos=F("num_repos") + 1)
    if owner.is_organization:
        teams = list(
            Team.objects.filter(org=owner, includes_all_repositories=True).values_list(
                "pk", flat=True
            )
        )
        TeamRepo.objects.bulk_create([TeamRepo(team_id=team, repo=repo) for team in teams])
        Team.objects.filter(pk__in=teams).update(num_repos=F("num_repos") + 1)


def resolve_repo(owner_name: str, repo_name: str) -> tuple[Repository, bool]:
    """(repository, reached through a rename redirect) or NotFound."""
    repo = (
        Repository.objects.select_related("owner", "parent__owner")
        .filter(owner__lower_name=owner_name.lower(), lower_name=repo_name.lower())
        .first()
    )
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


def delete_repo(repo: Repository, *, remove_directory: bool = True) -> None:
    path = git.repo_path(repo.owner.name, repo.name)
    with transaction.atomic():
        team_ids = list(TeamRepo.objects.filter(repo=repo).values_list("team_id", flat=True))
        Owner.objects.filter(pk=repo.owner_id).update(num_repos=F("num_repos") - 1)
        if repo.parent_id:
            Repository.objects.filter(pk=repo.parent_id).update(num_forks=F("num_forks") - 1)
        repo.delete()
        _recount_team_repos(team_ids)
        if remove_directory:
            transaction.on_commit(lambda: git.delete(path))


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


MERGE_STYLES = {"merge", "rebase", "rebase-merge", "squash", "fast-forward-only", "manually-merged"}


def edit_repo(actor: Actor, repo: Repository, edit: RepoEdit) -> Repository:
    """Apply in Gitea's order: basic properties, units, archived. Each step is saved on its
    own, so a failure stops the rest and earlier changes stay (as in Gitea)."""
    if edit.name is not None and edit.name.lower() != repo.lower_name:
        rename_repo(actor, repo, edit.name)
    elif edit.name:
        repo.name = edit.name  # case-only change: display name only
    _apply_basic(actor, repo, edit)
    repo.save()
    _apply_units(repo, edit)
    repo.save(update_fields=["units", "updated_at"])
    if edit.archived is not None:
        if repo.is_mirror:
            raise Invalid("repo is a mirror, cannot archive/un-archive")
        if edit.archived != repo.is_archived:
            repo.is_archived = edit.archived
            repo.archived_at = timezone.now() if edit.archived else None
            repo.save(update_fields=["is_archived", "archived_at", "updated_at"])
    return repo


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
                git.run(["symbolic-ref", "HEAD", f"refs/heads/{edit.default_branch}"], cwd=path)


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
    source = git.repo_path(repo.owner.name, old_name)
    target = git.repo_path(repo.owner.name, new_name)
    clash = Repository.objects.filter(owner=repo.owner, lower_name=new_name.lower()).exclude(
        pk=repo.pk
    )
    if clash.exists():
        raise Invalid(f"repository already exists [uname: {repo.owner.name}, name: {new_name}]")
    moved = False
    try:
        with transaction.atomic():
            repo.name = new_name
            repo.save()
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
                private=source.private,
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
            _after_repo_created(repo, owner)
            Repository.objects.filter(pk=source.pk).update(num_forks=F("num_forks") + 1)
    except IntegrityError as exc:
        raise Conflict(REPO_EXISTS) from exc
    # The clone runs after the commit (a clone of a large repository must not hold the
    # database's write lock); a failed clone takes the record back out.
    with _git_work_or_undo(repo) as path:
        git.fork(git.repo_path(source.owner.name, source.name), path)
        repo.size = git.size(path)
        _save_found(repo, ["size"])
    return repo


def star(user: Owner, repo: Repository) -> None:
    if is_blocked(user, repo.owner):
        raise Forbidden("user is blocked by the repository owner")
    with transaction.atomic():
        _, created = Star.objects.get_or_create(user=user, repo=repo)
        if created:
            Repository.objects.filter(pk=repo.pk).update(num_stars=F("num_stars") + 1)
            Owner.objects.filter(pk=user.pk).update(num_stars=F("num_stars") + 1)


def unstar(user: Owner, repo: Repository) -> None:
    with transaction.atomic():
        deleted, _ = Star.objects.filter(user=user, repo=repo).delete()
        if deleted:
            Repository.objects.filter(pk=repo.pk).update(num_stars=F("num_stars") - 1)
            Owner.objects.filter(pk=user.pk).update(num_stars=F("num_stars") - 1)


def add_collaborator(repo: Repository, user: Owner, permission: str) -> None:
    if user.is_organization:
        raise Invalid("user is an organization")
    if user.pk == repo.owner_id:
        raise Invalid("the owner cannot be a collaborator")
    if is_blocked(user, repo.owner):
        raise Forbidden("user is blocked by the repository owner")
    mode = parse_any_mode(permission) if permission else AccessMode.WRITE
    if mode == AccessMode.NONE:
        raise Invalid("[Permission]: In")
    Collaboration.objects.update_or_create(repo=repo, user=user, defaults={"access_mode": mode})


TOPIC_PATTERN = r"^[a-z0-9][-.a-z0-9]*$"


def set_topics(repo: Repository, topics: list[str]) -> list[str]:
    """Replace the topics; invalid ones are returned (Gitea answers 422 listing them)."""
    import re

    cleaned = []
    invalid = []
    for topic in topics:
        topic = str(topic).strip().lower()
        if not topic:
            continue
        if len(topic) > 35 or not re.match(TOPIC_PATTERN, topic):
            invalid.append(topic)
        elif topic not in cleaned:
            cleaned.append(topic)
    if invalid:
        return invalid
    if len(cleaned) > 25:
        raise Invalid("Exceeding maximum number of topics per repo")
    repo.topics = cleaned
    repo.save(update_fields=["topics", "topics_index", "updated_at"])
    return []


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
