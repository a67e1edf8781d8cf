"""The sixteen team operations (Gitea's /orgs/{org}/teams..., /teams/{id}..., /user/teams)."""

from datetime import date

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from codehost import access
from codehost.api.base import GiteaViewMixin
from codehost.api.params import gitea_bool, stripped
from codehost.api.serializers.bodies import (
    CreateTeamOptionSerializer,
    EditTeamOptionSerializer,
    parse_body,
)
from codehost.api.serializers.repos import ACTIVITY, REPOSITORY
from codehost.api.serializers.users import TEAM, USER, TeamSearchResultsSerializer
from codehost.api.views.common import (
    get_team,
    load_accounts,
    reject_public_only,
    render_repo,
    render_repos,
    render_team,
    render_user,
    repos_context,
    repository_rows,
    require_public_repo,
    search_response,
    visible_org,
)
from codehost.errors import NotFound
from codehost.models import Owner, Repository, Team, TeamMember
from codehost.services import activity
from codehost.services import teams as team_service
from config.filters import Param, QueryFilters
from config.plain_json import mark_plain

TAGS = ["organization"]

# GET /orgs/{org}/teams/search; include_desc is read only with a keyword.
TEAM_SEARCH = QueryFilters(
    {"q": Param(str, stripped, ""), "include_desc": Param(bool, gitea_bool, True)}
)


def team_options(data: dict) -> team_service.TeamOptions:
    return team_service.TeamOptions(
        name=data.get("name"),
        description=data.get("description"),
        permission=data.get("permission") or "",
        includes_all_repositories=data.get("includes_all_repositories"),
        can_create_org_repo=data.get("can_create_org_repo"),
        units=data.get("units"),
        units_map=data.get("units_map"),
    )


class TeamViewMixin(GiteaViewMixin):
    token_scopes = ["organization"]
    require_signin = True


class OrgTeamsView(TeamViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="orgListTeams", responses=TEAM.serializer(many=True))
    def get(self, request, org):
        org = visible_org(self.actor, org)
        access.require_org_member(self.actor, org)
        teams = self.paginate(Team.objects.filter(org=org).order_by("lower_name", "id"))
        data = [render_team(self.actor, team, with_org=False) for team in teams]
        return self.paginator.get_paginated_response(data)

    @extend_schema(
        tags=TAGS,
        operation_id="orgCreateTeam",
        request=CreateTeamOptionSerializer,
        responses={201: TEAM.serializer},
    )
    def post(self, request, org):
        org = visible_org(self.actor, org)
        access.require_org_member(self.actor, org)
        access.require_org_owner(self.actor, org)
        options = team_options(parse_body(CreateTeamOptionSerializer, request.data))
        team = team_service.create_team(org, options, self.actor)
        return Response(render_team(self.actor, team, with_org=True), status=201)


class OrgTeamSearchView(TeamViewMixin, APIView):
    @extend_schema(
        tags=TAGS,
        operation_id="teamSearch",
        parameters=TEAM_SEARCH.parameters,
        responses=TeamSearchResultsSerializer,
    )
    def get(self, request, org):
        org = visible_org(self.actor, org)
        access.require_org_member(self.actor, org)
        teams = access.searchable_teams(
            self.actor,
            org,
            TEAM_SEARCH.get(request.query_params, "q").lower(),
            TEAM_SEARCH.get(request.query_params, "include_desc"),
        )
        return search_response(
            self.paginator,
            lambda: [render_team(self.actor, t, with_org=False) for t in self.paginate(teams)],
            lambda exc: "SearchTeam internal failure",
        )


class UserTeamsView(GiteaViewMixin, APIView):
    token_scopes = ["user"]
    require_signin = True

    @extend_schema(
        tags=["user"], operation_id="userListTeams", responses=TEAM.serializer(many=True)
    )
    def get(self, request):
        reject_public_only(self.actor)
        teams = (
            Team.objects.filter(teammember__user=self.actor.owner)
            .select_related("org")
            .order_by("org__lower_name", "lower_name", "id")
        )
        page = self.paginate(teams)
        data = [render_team(self.actor, team, with_org=True) for team in page]
        return self.paginator.get_paginated_response(data)


class TeamView(TeamViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="orgGetTeam", responses=TEAM.serializer)
    def get(self, request, id):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        return Response(render_team(self.actor, team, with_org=True))

    @extend_schema(
        tags=TAGS,
        operation_id="orgEditTeam",
        request=EditTeamOptionSerializer,
        responses=TEAM.serializer,
    )
    def patch(self, request, id):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team, owner_required=True)
        options = team_options(parse_body(EditTeamOptionSerializer, request.data))
        team = team_service.edit_team(team, options)
        return Response(render_team(self.actor, team, with_org=False))

    @extend_schema(tags=TAGS, operation_id="orgDeleteTeam", responses={204: None})
    def delete(self, request, id):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team, owner_required=True)
        team_service.delete_team(team)
        return Response(status=204)


class TeamMembersView(TeamViewMixin, APIView):
    @extend_schema(
        tags=TAGS, operation_id="orgListTeamMembers", responses=USER.serializer(many=True)
    )
    def get(self, request, id):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        if not (self.actor.is_admin or access.is_org_member(self.actor, team.org)):
            raise NotFound()
        members = Owner.objects.filter(member_teams=team).select_related("user")
        # X-Total-Count is the team's stored counter, as in Gitea.
        page = self.paginate(members.order_by("full_name", "lower_name", "id"), team.num_members)
        data = [render_user(self.actor, member) for member in page]
        return self.paginator.get_paginated_response(data)


def team_member(team: Team, username: str) -> Owner:
    member = (
        Owner.objects.select_related("user")
        .filter(lower_name=username.lower(), kind=Owner.Kind.USER)
        .first()
    )
    if member is None:
        raise NotFound(f"user does not exist [name: {username}]")
    return member


class TeamMemberView(TeamViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="orgListTeamMember", responses=USER.serializer)
    def get(self, request, id, username):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        member = team_member(team, username)
        if not TeamMember.objects.filter(team=team, user=member).exists():
            raise NotFound()
        return Response(render_user(self.actor, member))

    @extend_schema(tags=TAGS, operation_id="orgAddTeamMember", request=None, responses={204: None})
    def put(self, request, id, username):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team, owner_required=True)
        team_service.add_team_member(team, team_member(team, username), self.actor)
        return Response(status=204)

    @extend_schema(tags=TAGS, operation_id="orgRemoveTeamMember", responses={204: None})
    def delete(self, request, id, username):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team, owner_required=True)
        team_service.remove_team_member(team, team_member(team, username))
        return Response(status=204)


class TeamReposView(TeamViewMixin, APIView):
    @extend_schema(
        tags=TAGS, operation_id="orgListTeamRepos", responses=REPOSITORY.serializer(many=True)
    )
    def get(self, request, id):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        repos = Repository.objects.filter(team_links__team=team).order_by("name", "id")
        page = self.paginate(repository_rows(repos), team.num_repos)
        data = render_repos(self.actor, page)
        return mark_plain(self.paginator.get_paginated_response(data))


def team_repo(actor: access.Actor, team, name: str) -> Repository:
    """The team's organization's repository; a `public-only` token may not link, unlink
    or read a private one here either (the team routes load it themselves)."""
    found = team_service.find_team_repo(team, name)
    require_public_repo(actor, found)
    return found


class TeamRepoView(TeamViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="orgListTeamRepo", responses=REPOSITORY.serializer)
    def get(self, request, id, org, repo):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        found = team_repo(self.actor, team, repo)
        if not found.team_links.filter(team=team).exists():
            raise NotFound()
        return render_repo(self.actor, found)

    @extend_schema(tags=TAGS, operation_id="orgAddTeamRepository", request=None,
                   responses={204: None})  # fmt: skip
    def put(self, request, id, org, repo):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        team_service.add_team_repo(team, team_repo(self.actor, team, repo), self.actor)
        return Response(status=204)

    @extend_schema(tags=TAGS, operation_id="orgRemoveTeamRepository", responses={204: None})
    def delete(self, request, id, org, repo):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        team_service.remove_team_repo(team, team_repo(self.actor, team, repo), self.actor)
        return Response(status=204)


class TeamFeedView(TeamViewMixin, APIView):
    @extend_schema(
        tags=TAGS,
        operation_id="orgListTeamActivityFeeds",
        parameters=[OpenApiParameter("date", OpenApiTypes.DATE)],
        responses=ACTIVITY.serializer(many=True),
    )
    def get(self, request, id):
        team = get_team(self.actor, id)
        access.check_team_access(self.actor, team)
        try:
            day = date.fromisoformat(request.query_params.get("date", ""))
        except ValueError:
            day = None  # Gitea ignores an unparsable date
        page = self.paginate(activity.team_feed(team, day).select_related("act_user"))
        ids = {entry.repo_id for entry in page if entry.repo_id}
        rows = list(repository_rows(Repository.objects.filter(pk__in=ids))) if ids else []
        context = repos_context(self.actor, rows, with_parent=False)
        context["repos"] = {row["id"]: row for row in rows}
        load_accounts(self.actor, [entry.act_user for entry in page])
        data = [ACTIVITY.render(entry, context) for entry in page]
        return self.paginator.get_paginated_response(data)
