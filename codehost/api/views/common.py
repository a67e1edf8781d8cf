"""Lookups and renderers the code hosting views share."""

import logging
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import DatabaseError, DataError
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from django.http import HttpResponsePermanentRedirect
from rest_framework.response import Response

from codehost import access
from codehost.api.serializers.repos import (
    MIRROR_EXPRESSIONS,
    REPOSITORY,
    ROW_COLUMNS,
    ROW_EXPRESSIONS,
    repository_context,
)
from codehost.api.serializers.users import ORGANIZATION, TEAM, USER
from codehost.errors import Forbidden, NotFound
from codehost.models import Mirror, Owner, Repository, Team, Visibility
from codehost.services import repositories
from config.kept import Kept, KeptInstances, KeptList, any_id, arg
from config.plain_json import mark_plain

logger = logging.getLogger(__name__)


# An owner by name, with its account (kept: see config.kept).
OWNER_NAMED = KeptInstances(
    Owner, ("user",), lambda owners: owners.filter(lower_name=arg("lower_name"))
)


def visible_owner(actor: access.Actor, name: str) -> Owner:
    owner = OWNER_NAMED.first(lower_name=name.lower())
    if owner is None or not access.can_see_owner(actor, owner):
        raise NotFound(f"user does not exist [name: {name}]")
    return owner


def visible_user(actor: access.Actor, name: str) -> Owner:
    """A user account (not an organization) the caller can see."""
    owner = visible_owner(actor, name)
    if owner.is_organization:
        raise NotFound(f"user does not exist [name: {name}]")
    return owner


def visible_org(actor: access.Actor, name: str) -> Owner:
    org = visible_owner(actor, name)
    if not org.is_organization:
        raise NotFound(f"org does not exist [name: {name}]")
    require_public_org(actor, org)
    return org


def get_team(actor: access.Actor, team_id) -> Team:
    team = Team.objects.select_related("org").filter(pk=team_id).first()
    if team is None:
        raise NotFound(f"team does not exist [id: {team_id}]")
    require_public_org(actor, team.org)
    return team


# Gitea's checkTokenPublicOnly: a `public-only` token reaches only public resources; what it
# may not reach but could see is refused with 403 (what it cannot see stays 404).


def require_public_org(actor: access.Actor, org: Owner) -> None:
    if actor.public_only and org.visibility != Visibility.PUBLIC:
        raise Forbidden("token scope is limited to public orgs")


def require_public_user(actor: access.Actor, user: Owner) -> None:
    if actor.public_only and user.visibility != Visibility.PUBLIC:
        raise Forbidden("token scope is limited to public users")


def require_public_repo(actor: access.Actor, repo: Repository) -> None:
    if actor.public_only and repo.private:
        raise Forbidden("token scope is limited to public repos")


def reject_public_only(actor: access.Actor) -> None:
    if actor.public_only:
        raise Forbidden("this endpoint is not available for public-only tokens")


class RepoRedirect(Exception):
    """The repository was renamed: answer 301 to the same URL under the new name."""

    def __init__(self, repo: Repository):
        self.repo = repo


def visible_repo(actor: access.Actor, owner: str, name: str) -> tuple[Repository, access.Access]:
    repo, redirected = repositories.resolve_repo(owner, name)
    repo_access = access.repo_access(actor, repo)
    if not repo_access.can_see:
        raise NotFound()
    require_public_repo(actor, repo)
    if redirected:
        raise RepoRedirect(repo)
    return repo, repo_access


def redirect_response(request, old_owner: str, old_name: str, repo: Repository):
    path = request.get_full_path()
    old = f"/{old_owner}/{old_name}"
    new = f"/{repo.owner.name}/{repo.name}"
    index = path.lower().find(old.lower())
    location = path[:index] + new + path[index + len(old) :] if index >= 0 else path
    return HttpResponsePermanentRedirect(location)


def repository_rows(repos):
    """`repos` (a queryset, in page order) as the rows REPOSITORY renders, still lazy: the
    paginator counts and slices it."""
    return repos.values(*ROW_COLUMNS, **ROW_EXPRESSIONS)


def render_repos(actor: access.Actor, rows, *, with_parent: bool = True) -> list[dict]:
    """A page of repository rows with the caller's permissions: constant queries per page."""
    rows = list(rows)
    context = repos_context(actor, rows, with_parent=with_parent)
    return [REPOSITORY.render(row, context) for row in rows]


# Repository rows, the mirror settings and the owners of a page's repositories, by id
# (kept queries: see config.kept).
OWNERS = KeptInstances(Owner, (), lambda owners: owners.filter(pk__in=any_id("ids")))
REPOS_BY_ID = Kept(lambda: repository_rows(Repository.objects.filter(pk__in=any_id("ids"))))
MIRRORS = Kept(
    lambda: Mirror.objects.filter(repo_id__in=any_id("ids")).values(
        "repo_id", "interval_seconds", **MIRROR_EXPRESSIONS
    )
)
OWNERS_WITH_ACCOUNTS = KeptInstances(
    Owner, ("user",), lambda owners: owners.filter(pk__in=any_id("ids"))
)


def repos_context(actor: access.Actor, rows: list[dict], *, with_parent: bool) -> dict:
    """What rendering `rows` reads beside them, one query per kind whatever the page size:
    the forks' parents (when shown), the owners (with their accounts when an admin looks:
    an admin sees every user's private fields), the mirror settings, the caller's access.
    Each row gets its `full_name`.

    The page query itself stays on the repository table: joining owners there would make
    the planner weigh every join for every page.
    """
    parents = {}
    parent_ids = {row["parent_id"] for row in rows if row["parent_id"]} if with_parent else ()
    if parent_ids:
        parents = {row["id"]: row for row in REPOS_BY_ID.rows(ids=parent_ids)}
    everything = rows + list(parents.values())
    owners = (OWNERS_WITH_ACCOUNTS if actor.is_admin else OWNERS).all(
        ids={row["owner_id"] for row in everything}
    )
    owner_objects = {owner.pk: owner for owner in owners}
    for row in everything:
        row["full_name"] = f"{owner_objects[row['owner_id']].name}/{row['name']}"
    mirrors = {}
    mirror_ids = [row["id"] for row in everything if row["is_mirror"]]
    if mirror_ids:
        mirrors = {row["repo_id"]: row for row in MIRRORS.rows(ids=mirror_ids)}
    access_map = access.rows_access_map(
        actor, [(row["id"], owner_objects[row["owner_id"]], row["private"]) for row in everything]
    )
    context = repository_context(actor, access_map)
    context.update(
        owner_objects=owner_objects, parents=parents, mirrors=mirrors, with_parent=with_parent
    )
    return context


def _visible(repos, kind: str):
    condition = access.visibility_condition(kind, arg("me"))
    return repos if condition is None else repos.filter(condition)


# The repositories of an owner, and the forks of a repository, that the caller sees:
# kept lists (see config.kept), one statement per kind of caller.
OWNER_REPOS = KeptList(
    lambda kind: repository_rows(
        _visible(Repository.objects.filter(owner_id=RawSQL("%s", (arg("owner"),))), kind).order_by(
            "lower_name", "id"
        )
    )
)
# GET /user/repos: see access.REACHED_SQL.
REACHED_REPOS = KeptList(
    lambda kind: repository_rows(
        _visible(
            Repository.objects.filter(access.reached_repos_condition(arg("me"))), kind
        ).order_by("lower_name", "id")
    )
)
FORKS = KeptList(
    lambda kind: repository_rows(
        _visible(
            Repository.objects.filter(parent_id=RawSQL("%s", (arg("parent"),))), kind
        ).order_by("id")
    )
)


def visible_rows(kept: KeptList, actor: access.Actor, **values):
    """The rows of a kept list of repositories that `actor` sees."""
    me = actor.owner.pk if actor.signed_in else None
    return kept.rows(access.visibility_kind(actor), me=me, **values)


def repos_page(view, repos) -> Response:
    """A page of `repos` (a queryset in page order, or the rows of a kept list) with
    Gitea's paging headers."""
    rows = view.paginate(repository_rows(repos) if isinstance(repos, QuerySet) else repos)
    return mark_plain(view.paginator.get_paginated_response(render_repos(view.actor, rows)))


def load_accounts(actor: access.Actor, owners: list[Owner]) -> None:
    """An admin sees every user's private fields, which live on the account: load them at once."""
    if actor.is_admin:
        _attach(owners, Owner.user.field, "user_id", get_user_model().objects)


def _attach(instances: list, field, key: str, manager) -> None:
    """Fill a forward relation of many instances from one in_bulk query."""
    missing = [item for item in instances if getattr(item, key) and not field.is_cached(item)]
    if not missing:
        return
    found = manager.in_bulk({getattr(item, key) for item in missing})
    for item in missing:
        field.set_cached_value(item, found.get(getattr(item, key)))


def render_repo(actor: access.Actor, repo: Repository, status: int = 200, **headers) -> Response:
    data = render_repos(actor, REPOS_BY_ID.rows(ids=[repo.pk]))[0]
    return mark_plain(Response(data, status=status, headers=headers or None))


def render_user(actor: access.Actor, owner: Owner) -> dict:
    return USER.render(owner, {"actor": actor, "profile": True})


def render_org(actor: access.Actor, org: Owner) -> dict:
    return ORGANIZATION.render(org, {"actor": actor})


def render_team(actor: access.Actor, team: Team, with_org: bool) -> dict:
    return TEAM.render(team, {"actor": actor, "with_org": with_org})


def search_response(paginator, run: Callable[[], list], error: Callable[[DatabaseError], str]):
    """{"ok": true, "data": [...]} with paging headers, or Gitea's search failure body:
    500 {"ok": false, "error": "..."} when the database fails (bad input is 4xx earlier)."""
    try:
        data = run()
    except DataError:
        raise
    except DatabaseError as exc:
        logger.exception("search failed")
        return Response({"ok": False, "error": error(exc)}, status=500)
    return mark_plain(paginator.get_paginated_response({"ok": True, "data": data}))
