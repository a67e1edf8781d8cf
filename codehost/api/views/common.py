"""Lookups and renderers the code hosting views share."""

import logging
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import DatabaseError, DataError
from django.http import HttpResponsePermanentRedirect
from rest_framework.response import Response

from codehost import access
from codehost.api.serializers.repos import REPOSITORY, repository_context
from codehost.api.serializers.users import ORGANIZATION, TEAM, USER
from codehost.errors import Forbidden, NotFound
from codehost.models import Mirror, Owner, Repository, Team, Visibility
from codehost.services import repositories

logger = logging.getLogger(__name__)

# For one repository read on its own; lists load their relations in load_relations().
REPO_RELATED = ("owner", "owner__user", "parent__owner", "parent__owner__user", "mirror")


def visible_owner(actor: access.Actor, name: str) -> Owner:
    owner = Owner.objects.select_related("user").filter(lower_name=name.lower()).first()
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


def render_repos(actor: access.Actor, repos: list[Repository]) -> list[dict]:
    """A page of repositories with the caller's permissions: constant queries per page."""
    repos = list(repos)
    parents = load_relations(actor, repos)
    context = repository_context(actor, access.repo_access_map(actor, repos + parents))
    context["with_parent"] = True
    return [REPOSITORY.render(repo, context) for repo in repos]


def load_relations(actor: access.Actor, repos: list[Repository]) -> list[Repository]:
    """Attach what rendering reads (parents, owners, mirror rows, and the owners' accounts
    when an admin looks) with one query per kind, only for what is not loaded yet.

    The page query itself stays on the repository table: joining owners there would build
    one owner object per row and make the planner weigh every join. Returns the parents.
    """
    forks = [repo for repo in repos if repo.parent_id and not Repository.parent.is_cached(repo)]
    if forks:
        found = Repository.objects.in_bulk({repo.parent_id for repo in forks})
        for repo in forks:
            Repository.parent.field.set_cached_value(repo, found.get(repo.parent_id))
    parents = [repo.parent for repo in repos if repo.parent_id and repo.parent is not None]
    everything = repos + parents
    _attach(everything, Repository.owner.field, "owner_id", Owner.objects)
    unloaded = [repo for repo in everything if not Repository.mirror.is_cached(repo)]
    mirrors = [repo for repo in unloaded if repo.is_mirror]
    if mirrors:
        rows = {row.repo_id: row for row in Mirror.objects.filter(repo__in=mirrors)}
        for repo in mirrors:
            Repository.mirror.related.set_cached_value(repo, rows.get(repo.pk))
    load_accounts(actor, [repo.owner for repo in everything])
    return parents


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
    repo = Repository.objects.select_related(*REPO_RELATED).get(pk=repo.pk)
    return Response(render_repos(actor, [repo])[0], status=status, headers=headers or None)


def render_user(actor: access.Actor, owner: Owner) -> dict:
    return USER.render(owner, {"actor": actor})


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
    return paginator.get_paginated_response({"ok": True, "data": data})
