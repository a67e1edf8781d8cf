"""Who may see and do what: Gitea's permission model, computed in batches.

A caller's access to a repository is an overall mode plus a mode per unit:
- site admin and the personal owner: owner on everything;
- teams of the owning organization that hold the repository (the Owners team holds
  every repository): an admin/owner team gives its mode on every unit, other teams their
  per-unit modes;
- a collaborator: the collaboration mode on every unit;
- anyone who can see a public repository: read on every unit.
For a page of repositories this costs at most three queries, whatever the page size.
"""

from dataclasses import dataclass, field

from django.db.models import BigIntegerField, BooleanField, F, JSONField, Q, Value
from django.db.models.expressions import RawSQL
from django.db.models.lookups import In

from codehost.errors import Forbidden, NotFound
from codehost.models import (
    AccessMode,
    Collaboration,
    OrgMembership,
    Owner,
    OwnerRepositoryCount,
    Repository,
    Team,
    TeamMember,
    TeamRepo,
    UnitType,
    Visibility,
)
from config.kept import Kept, any_id, arg
from config.vendor_sql import Unindexed

ALL_UNITS = [unit.label for unit in UnitType]
CODE_UNIT = UnitType.CODE.label


@dataclass
class Actor:
    """The caller: a user namespace (None when anonymous) and whether they are site admin."""

    owner: Owner | None = None
    is_admin: bool = False
    # Signed in with a `public-only` token: private resources stay out of reach.
    public_only: bool = False

    @property
    def signed_in(self) -> bool:
        return self.owner is not None


@dataclass
class Access:
    mode: int = AccessMode.NONE
    units: dict[str, int] = field(default_factory=dict)

    def unit(self, key: str) -> int:
        return self.units.get(key, AccessMode.NONE)

    @property
    def can_see(self) -> bool:
        return self.mode > AccessMode.NONE or any(self.units.values())

    @property
    def is_admin(self) -> bool:
        return self.mode >= AccessMode.ADMIN

    @property
    def can_write_code(self) -> bool:
        return self.unit(CODE_UNIT) >= AccessMode.WRITE

    @property
    def can_read_code(self) -> bool:
        return self.unit(CODE_UNIT) >= AccessMode.READ

    def raise_to(self, mode: int, units: dict[str, int] | None = None) -> None:
        """At least `mode` overall and on `units` (every unit at `mode` when not given)."""
        if mode > self.mode:
            self.mode = mode
        if units is None:
            units = dict.fromkeys(ALL_UNITS, mode)
        mine = self.units
        for key, value in units.items():
            if value > mine.get(key, 0):
                mine[key] = value


def full_access(mode: int = AccessMode.OWNER) -> Access:
    access = Access()
    access.raise_to(mode)
    return access


def is_org_member(actor: Actor, org: Owner) -> bool:
    if not actor.signed_in:
        return False
    return OrgMembership.objects.filter(org=org, user=actor.owner).exists()


def is_org_owner(actor: Actor, org: Owner) -> bool:
    if not actor.signed_in:
        return False
    return TeamMember.objects.filter(
        team__org=org, team__access_mode=AccessMode.OWNER, user=actor.owner
    ).exists()


def can_see_owner(actor: Actor, owner: Owner) -> bool:
    if owner.visibility == Visibility.PUBLIC or actor.is_admin:
        return True
    if owner.visibility == Visibility.LIMITED:
        return actor.signed_in
    if actor.owner == owner:
        return True
    return owner.is_organization and is_org_member(actor, owner)


def repo_access_map(actor: Actor, repos: list[Repository]) -> dict[int, Access]:
    """{repo id: Access} for the caller; repos must have `owner` loaded."""
    return rows_access_map(actor, [(repo.pk, repo.owner, repo.private) for repo in repos])


def rows_access_map(actor: Actor, repos: list[tuple[int, Owner, bool]]) -> dict[int, Access]:
    """{repo id: Access} for the caller, of (id, owner, private) triples (rows read with
    `.values()`)."""
    result = {pk: Access() for pk, _, _ in repos}
    if not repos:
        return result
    if actor.is_admin:
        return {pk: full_access() for pk, _, _ in repos}
    ids = list(result)
    member_of: set[int] = set()
    if actor.signed_in:
        me = actor.owner.pk
        for repo_id, mode, units in GRANTS.rows(ids=ids, me=me):
            if units is None or mode >= AccessMode.ADMIN:
                result[repo_id].raise_to(mode)
            else:
                result[repo_id].raise_to(mode, _known_units(units))
        private_orgs = {
            owner.pk
            for _, owner, _ in repos
            if owner.is_organization and owner.visibility == Visibility.PRIVATE
        }
        if private_orgs:
            member_of = {org_id for (org_id,) in MEMBER_OF.rows(ids=private_orgs, me=me)}
    for pk, owner, private in repos:
        access = result[pk]
        if actor.signed_in and owner.pk == actor.owner.pk:
            access.raise_to(AccessMode.OWNER)
        elif not private and _owner_visible(actor, owner, member_of):
            access.raise_to(AccessMode.READ)
    return result


def _grants():
    """The caller's teams holding the repositories and their collaborations, in one query:
    a collaboration has no unit settings (NULL), a team always has them."""
    me = RawSQL("%s", (arg("me"),))
    teams = TeamRepo.objects.filter(repo_id__in=any_id("ids"), team__members=me)
    collaborations = Collaboration.objects.filter(repo_id__in=any_id("ids"), user=me)
    return teams.values_list("repo_id", "team__access_mode", "team__units").union(
        collaborations.values_list("repo_id", "access_mode", Value(None, JSONField())), all=True
    )


GRANTS = Kept(_grants)
MEMBER_OF = Kept(
    lambda: OrgMembership.objects.filter(
        org_id__in=any_id("ids"), user=RawSQL("%s", (arg("me"),))
    ).values_list("org_id")
)


def _known_units(units: dict) -> dict[str, int]:
    return {key: mode for key, mode in units.items() if key in ALL_UNITS}


def _owner_visible(actor: Actor, owner: Owner, member_of: set[int]) -> bool:
    if owner.visibility == Visibility.PUBLIC:
        return True
    if owner.visibility == Visibility.LIMITED:
        return actor.signed_in
    return owner.pk in member_of


def repo_access(actor: Actor, repo: Repository) -> Access:
    return repo_access_map(actor, [repo])[repo.pk]


def _table(model) -> str:
    return f'"{model._meta.db_table}"'


# The signed-in visibility rule in SQL, for repository querysets (their table unaliased).
# Built once: the ORM spent more CPU composing and compiling its five subqueries, on every
# list, than the database spent running them. Portable SQL (booleans as in SQLite and
# PostgreSQL alike); parameters: the caller's owner id, once per %s.
_REPO = _table(Repository)
_COUNTS = _table(OwnerRepositoryCount)
_TEAMS_OF_MEMBER = (
    f"{_table(Team)} t INNER JOIN {_table(TeamMember)} m ON m.team_id = t.id WHERE m.user_id = %s"
)


def _visible_public(table: str) -> str:
    return (
        f"(NOT {table}.private AND ({table}.owner_id IN (SELECT o.id FROM {_table(Owner)} o"
        f" WHERE o.visibility IN ('{Visibility.PUBLIC.value}', '{Visibility.LIMITED.value}'))"
        f" OR {table}.owner_id IN (SELECT om.org_id FROM {_table(OrgMembership)} om"
        " WHERE om.user_id = %s)))"
    )


def _visible_by_owner(table: str) -> str:
    """What the caller sees of an owner's repositories, by owner and private flag alone."""
    return (
        f"{table}.owner_id = %s"
        # An organization's team that includes all its repositories: matched by owner
        # rather than through its thousands of links.
        f" OR {table}.owner_id IN (SELECT t.org_id FROM {_TEAMS_OF_MEMBER}"
        " AND t.includes_all_repositories)"
        f" OR {_visible_public(table)}"
    )


_LINKED = (
    f"{_REPO}.id IN (SELECT c.repo_id FROM {_table(Collaboration)} c WHERE c.user_id = %s)"
    f" OR {_REPO}.id IN (SELECT tr.repo_id FROM {_table(TeamRepo)} tr"
    f" WHERE tr.team_id IN (SELECT t.id FROM {_TEAMS_OF_MEMBER}"
    " AND NOT t.includes_all_repositories))"
)
VISIBLE_PUBLIC_SQL = _visible_public(_REPO)
VISIBLE_SQL = f"({_visible_by_owner(_REPO)} OR {_LINKED})"
# The same rule split for counting: the owner's share read from the kept per owner counts
# (OwnerRepositoryCount), and the repositories seen only through a collaboration or a
# team's link, which are few: looked up from the links (one IN over their union, not two
# ORed INs the database tests on every repository).
VISIBLE_COUNTS_SQL = f"({_visible_by_owner(_COUNTS)})"
LINKED_ONLY_SQL = (
    f"({_REPO}.id IN (SELECT c.repo_id FROM {_table(Collaboration)} c WHERE c.user_id = %s"
    f" UNION SELECT tr.repo_id FROM {_table(TeamRepo)} tr"
    f" WHERE tr.team_id IN (SELECT t.id FROM {_TEAMS_OF_MEMBER}"
    f" AND NOT t.includes_all_repositories))"
    f" AND NOT ({_visible_by_owner(_REPO)}))"
)


# GET /user/repos (Gitea's ListMyRepos: a repository search with the caller as OwnerID,
# collaborations included): what the caller owns, collaborates on, reaches through a
# team, and the public repositories of the organizations they belong to. One id set (a
# union the database reads by index), not ORed INs tested on every repository.
REACHED_SQL = (
    f"{_REPO}.id IN (SELECT r.id FROM {_REPO} r WHERE r.owner_id = %s"
    f" UNION SELECT c.repo_id FROM {_table(Collaboration)} c WHERE c.user_id = %s"
    f" UNION SELECT tr.repo_id FROM {_table(TeamRepo)} tr INNER JOIN {_table(TeamMember)} m"
    " ON m.team_id = tr.team_id WHERE m.user_id = %s"
    f" UNION SELECT r.id FROM {_REPO} r WHERE NOT r.private AND r.owner_id IN"
    f" (SELECT om.org_id FROM {_table(OrgMembership)} om WHERE om.user_id = %s))"
)


def reached_repos_condition(me):
    """REACHED_SQL for the caller's owner id `me` (a value or a kept query's marker)."""
    return RawSQL(REACHED_SQL, (me,) * 4, output_field=BooleanField())


def visible_repository_counts(kind: str, me):
    """Rows whose sum is the number of repositories `visibility_condition(kind, me)`
    selects, read from the per owner counts (`me`: a value or a kept query's marker)."""
    counts = OwnerRepositoryCount.objects.order_by()
    if kind in ("anonymous", "public"):
        counts = counts.filter(private=False)
    if kind == "anonymous":
        counts = counts.filter(owner_id__in=_owners_with(Visibility.PUBLIC))
    elif kind == "public-or-member":
        counts = counts.filter(RawSQL(_visible_public(_COUNTS), (me,), BooleanField()))
    elif kind == "visible":
        counts = counts.filter(RawSQL(VISIBLE_COUNTS_SQL, (me,) * 3, BooleanField()))
        linked = Repository.objects.filter(RawSQL(LINKED_ONLY_SQL, (me,) * 5, BooleanField()))
        one = Value(1, output_field=BigIntegerField())
        return counts.values_list("repository_count").union(
            linked.order_by().annotate(one=one).values_list("one"), all=True
        )
    return counts.values_list("repository_count")


def visible_repos_filter(actor: Actor, include_private: bool = True):
    """The condition selecting the repositories the caller can see, for `.filter()`;
    None means no restriction (admin).

    Owners are matched by id sets, never by joining the owner table, so a count of
    thousands of rows stays an index scan. A team that includes all repositories is
    linked to every repository of its organization, so it is matched by owner rather
    than through its thousands of links; only the other teams' links are read.
    """
    me = actor.owner.pk if actor.signed_in else None
    return visibility_condition(visibility_kind(actor, include_private), me)


def visibility_kind(actor: Actor, include_private: bool = True) -> str:
    """Which of the visibility conditions applies to the caller (a kept list's shape). A
    public-only token sees what an anonymous caller sees (Gitea: public repositories of
    public owners)."""
    if not actor.signed_in or actor.public_only:
        return "anonymous"
    if not include_private:
        return "public" if actor.is_admin else "public-or-member"
    return "everything" if actor.is_admin else "visible"


def visibility_condition(kind: str, me, *, keyword: bool = False):
    """The condition of `visibility_kind`, for the caller's owner id `me` (a value, or a
    kept query's marker). `keyword`: the query also matches a keyword (see Unindexed)."""
    if kind == "anonymous":
        if keyword:
            public = In(Unindexed(F("owner_id")), _owners_with(Visibility.PUBLIC))
            return Q(public, private=False)
        return Q(private=False, owner_id__in=_owners_with(Visibility.PUBLIC))
    if kind == "public":
        return Q(private=False)
    if kind == "public-or-member":
        return RawSQL(VISIBLE_PUBLIC_SQL, (me,), output_field=BooleanField())
    if kind == "everything":
        return None
    return RawSQL(VISIBLE_SQL, (me, me, me, me, me), output_field=BooleanField())


def visible_repos(actor: Actor, repos):
    """`repos` (a queryset) narrowed to what the caller can see."""
    visible = visible_repos_filter(actor)
    return repos if visible is None else repos.filter(visible)


def visible_orgs(actor: Actor):
    """The organizations GET /orgs lists (Gitea's orgGetAll): public ones to anonymous
    callers and `public-only` tokens, public and limited ones to users (a private
    organization is not listed, even to its members), every one to site admins."""
    orgs = Owner.objects.filter(kind=Owner.Kind.ORGANIZATION)
    if not actor.signed_in or actor.public_only:
        return orgs.filter(visibility=Visibility.PUBLIC)
    if actor.is_admin:
        return orgs
    return orgs.exclude(visibility=Visibility.PRIVATE)


def visible_org_members(actor: Actor, org: Owner):
    """The members of `org` the caller can see (its public members, unless the caller is a
    member or a site admin), as Owners."""
    members = OrgMembership.objects.filter(org=org)
    if not (actor.is_admin or is_org_member(actor, org)):
        members = members.filter(is_public=True)
    return Owner.objects.filter(pk__in=members.values("user_id"))


def searchable_teams(actor: Actor, org: Owner, keyword: str, include_desc: bool):
    """Gitea's team search in `org`: every team for a site admin, the caller's own teams
    otherwise; `keyword` (lower case) in the name, or in the description too."""
    teams = Team.objects.filter(org=org)
    if not actor.is_admin:
        teams = teams.filter(teammember__user=actor.owner)
    if keyword:
        match = Q(lower_name__contains=keyword)
        if include_desc:
            match |= Q(description__icontains=keyword)
        teams = teams.filter(match)
    return teams.order_by("lower_name", "id")


def _owners_with(*visibilities: str):
    return Owner.objects.filter(visibility__in=visibilities).values("id")


# --- organizations and teams (Gitea's reqOrgMembership / reqOrgOwnership / reqTeamMembership)


def require_org_member(actor: Actor, org: Owner) -> None:
    if not (actor.is_admin or is_org_member(actor, org)):
        raise Forbidden("Must be an organization member")


def require_org_owner(actor: Actor, org: Owner) -> None:
    if not (actor.is_admin or is_org_owner(actor, org)):
        raise Forbidden("Must be an organization owner")


def check_team_access(actor: Actor, team, *, owner_required: bool = False) -> None:
    """Team routes: site admin, org owner or team member; an org member outside the team
    gets 403, anybody else 404. Mutations then need org ownership and answer a team member
    404 (Gitea's team routes carry no organization context), in Gitea's order: its
    membership check guards the whole /teams/{id} group."""
    if actor.is_admin:
        return
    if is_org_owner(actor, team.org):
        return
    if not (actor.signed_in and TeamMember.objects.filter(team=team, user=actor.owner).exists()):
        if is_org_member(actor, team.org):
            raise Forbidden("Must be a team member")
        raise NotFound()
    if owner_required:
        raise NotFound()
