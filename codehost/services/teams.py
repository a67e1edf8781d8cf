"""Teams of an organization: their access modes and units, members, repositories."""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F

from codehost import names
from codehost.access import Actor, repo_access
from codehost.errors import Forbidden, InternalError, Invalid, NotFound
from codehost.models import (
    AccessMode,
    OrgMembership,
    Owner,
    Repository,
    Team,
    TeamMember,
    TeamRepo,
    UnitType,
    UserBlock,
)

EXTERNAL_UNITS = {UnitType.EXT_ISSUES.label, UnitType.EXT_WIKI.label}


UNIT_KEYS = {unit.label.lower(): unit.label for unit in UnitType}


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
    recount_team_repos([team.pk])


def recount_team_repos(team_ids) -> None:
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
        # Locked before its members are read: one being added meanwhile is in, and leaves
        # the organization with it if it was their only team.
        _lock_memberships(team.org_id)
        _lock_team(team)
        member_ids = list(TeamMember.objects.filter(team=team).values_list("user_id", flat=True))
        org = team.org
        team.delete()
        _drop_teamless_members(org, member_ids)


def _lock_memberships(org_id: int) -> None:
    """The organization's row locked (FOR NO KEY UPDATE, before any team's) by each change
    of who is in its teams: whether a member is left without a team, and so leaves the
    organization, is read and acted on by one change at a time. Otherwise a team's
    deletion and an addition to another team each saw the other's rows as uncommitted:
    the member left the organization while in a team (PostgreSQL)."""
    Owner.objects.select_for_update(no_key=True).filter(pk=org_id).values_list("pk").first()


def _lock_team(team: Team) -> None:
    """The team's row locked until the transaction ends (SQLite: the IMMEDIATE transaction
    holds the write lock), NotFound when a concurrent deletion took it: adding to a team
    deleted meanwhile failed its foreign key at commit (500)."""
    if Team.objects.select_for_update().filter(pk=team.pk).values_list("pk").first() is None:
        raise NotFound(f"team does not exist [id: {team.pk}]")


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
    if UserBlock.between(user, team.org) or (actor.owner and UserBlock.between(user, actor.owner)):
        raise Forbidden("user is blocked by the organization or the doer")
    with transaction.atomic():
        _lock_memberships(team.org_id)
        _lock_team(team)
        _, created = TeamMember.objects.get_or_create(team=team, user=user)
        if created:
            Team.objects.filter(pk=team.pk).update(num_members=F("num_members") + 1)
            OrgMembership.objects.get_or_create(org=team.org, user=user)


def remove_team_member(team: Team, user: Owner) -> None:
    with transaction.atomic():
        _lock_memberships(team.org_id)
        _lock_team(team)
        team = Team.objects.get(pk=team.pk)
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
        _lock_team(team)
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
