"""Repository operations: search, create, read, edit, delete, and what hangs off a repository
(forks, topics, collaborators)."""

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from codehost import access
from codehost.api.base import GiteaViewMixin
from codehost.api.params import gitea_bool, gitea_int, stripped
from codehost.api.serializers.bodies import (
    AddCollaboratorOptionSerializer,
    CreateForkOptionSerializer,
    CreateRepoOptionSerializer,
    EditRepoOptionSerializer,
    RepoTopicOptionsSerializer,
    parse_body,
)
from codehost.api.serializers.repos import REPOSITORY, TOPIC_NAME, SearchResultsSerializer
from codehost.api.serializers.users import USER
from codehost.api.views import search_rows
from codehost.api.views.common import (
    FORKS,
    OWNER_REPOS,
    REACHED_REPOS,
    render_repo,
    render_repos,
    render_user,
    repos_page,
    require_public_repo,
    search_response,
    visible_org,
    visible_owner,
    visible_repo,
    visible_rows,
)
from codehost.errors import NotFound
from codehost.models import PULL_DEFAULTS, Owner, Repository
from codehost.search import (
    SearchOptions,
    search_plan,
)
from codehost.services import collaborators, mirrors, repo_settings, repositories
from config.filters import Param, QueryFilters

TAGS = ["repository"]

# GET /repos/search: Gitea's query names, and the SearchOptions each one fills.
REPO_SEARCH = QueryFilters(
    {
        "q": Param(str, stripped, "", to="keyword"),
        "topic": Param(bool, gitea_bool, False, to="topic_only"),
        "includeDesc": Param(bool, gitea_bool, False, to="include_desc"),
        "uid": Param(int, gitea_int, 0),
        "starredBy": Param(int, gitea_int, 0, to="starred_by"),
        "private": Param(bool, gitea_bool, True, to="include_private"),
        "mode": Param(str, stripped, ""),
        "exclusive": Param(bool, gitea_bool, False),
        "sort": Param(str, stripped, ""),
        "order": Param(str, stripped, ""),
        "is_private": Param(bool, gitea_bool),
        "template": Param(bool, gitea_bool),
        "archived": Param(bool, gitea_bool),
        "team_id": Param(int, gitea_int, 0),
        "priority_owner_id": Param(int, gitea_int, 0),
    }
)


def repo_options(data: dict) -> repositories.RepoOptions:
    return repositories.RepoOptions(
        name=data["name"],
        description=data.get("description") or "",
        private=bool(data.get("private")),
        auto_init=bool(data.get("auto_init")),
        readme=data.get("readme") or "",
        gitignores=data.get("gitignores") or "",
        license=data.get("license") or "",
        default_branch=data.get("default_branch") or "",
        template=bool(data.get("template")),
    )


class RepoSearchView(GiteaViewMixin, APIView):
    token_scopes = ["repository"]

    @extend_schema(
        tags=TAGS,
        operation_id="repoSearch",
        parameters=REPO_SEARCH.parameters,
        responses=SearchResultsSerializer,
    )
    def get(self, request):
        options = SearchOptions(**REPO_SEARCH.parse(request.query_params))
        shape, values = search_plan(self.actor, options)
        if shape.words:
            run = lambda: self._keyword_page(shape, values)  # noqa: E731
        else:
            rows = search_rows.unfiltered_rows(shape, values)
            run = lambda: render_repos(self.actor, self.paginate(rows))  # noqa: E731
        return search_response(
            self.paginator,
            run,
            # Gitea answers with its error text; ours names the failure, not the SQL.
            lambda exc: f"SearchRepository: {type(exc).__name__}",
        )

    def _keyword_page(self, shape, values) -> list[dict]:
        size = self.paginator.get_page_size(self.request)
        start = (self.paginator.get_page_number(self.request) - 1) * size
        rows, total = search_rows.keyword_page(shape, values, start, size)
        return render_repos(self.actor, self.paginate(search_rows.ReadPage(rows), total=total))


class UserReposView(GiteaViewMixin, APIView):
    token_scopes = ["user", "repository"]
    require_signin = True

    @extend_schema(
        tags=["user"],
        operation_id="userCurrentListRepos",
        responses=REPOSITORY.serializer(many=True),
    )
    def get(self, request):
        kind = "anonymous" if self.actor.public_only else "everything"
        return repos_page(self, REACHED_REPOS.rows(kind, me=self.actor.owner.pk))

    @extend_schema(
        tags=TAGS,
        operation_id="createCurrentUserRepo",
        request=CreateRepoOptionSerializer,
        responses={201: REPOSITORY.serializer},
    )
    def post(self, request):
        owner = repositories.personal_namespace(self.actor)
        options = repo_options(parse_body(CreateRepoOptionSerializer, request.data))
        repo = repositories.create_repo(self.actor, owner, options)
        return render_repo(self.actor, repo, status=201)


class OrgReposView(GiteaViewMixin, APIView):
    """POST /orgs/{org}/repos and the deprecated POST /org/{org}/repos giteapy uses."""

    token_scopes = {"GET": ["organization", "repository"], "POST": ["organization", "repository"]}

    @extend_schema(
        tags=["organization"],
        operation_id="orgListRepos",
        responses=REPOSITORY.serializer(many=True),
    )
    def get(self, request, org):
        org = visible_org(self.actor, org)
        return repos_page(self, visible_rows(OWNER_REPOS, self.actor, owner=org.pk))

    @extend_schema(
        tags=["organization"],
        operation_id="createOrgRepo",
        request=CreateRepoOptionSerializer,
        responses={201: REPOSITORY.serializer},
    )
    def post(self, request, org):
        if not request.user.is_authenticated:
            raise access_required()
        owner = repositories.org_for_new_repo(self.actor, org)
        options = repo_options(parse_body(CreateRepoOptionSerializer, request.data))
        repo = repositories.create_repo(self.actor, owner, options)
        return render_repo(self.actor, repo, status=201)


class OwnerReposView(GiteaViewMixin, APIView):
    """GET /users/{username}/repos: Gitea's ListUserRepos, the handler GET /orgs/{org}/repos
    uses too; {username} may name an organization."""

    token_scopes = ["user", "repository"]

    @extend_schema(
        tags=["user"], operation_id="userListRepos", responses=REPOSITORY.serializer(many=True)
    )
    def get(self, request, username):
        owner = visible_owner(self.actor, username)
        return repos_page(self, visible_rows(OWNER_REPOS, self.actor, owner=owner.pk))


def access_required() -> NotAuthenticated:
    return NotAuthenticated("token is required")


class RepoViewMixin(GiteaViewMixin):
    token_scopes = ["repository"]

    def load(self, owner: str, repo: str):
        return visible_repo(self.actor, owner, repo)


class RepoView(RepoViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="repoGet", responses=REPOSITORY.serializer)
    def get(self, request, owner, repo):
        found, _ = self.load(owner, repo)
        return render_repo(self.actor, found)

    @extend_schema(
        tags=TAGS,
        operation_id="repoEdit",
        request=EditRepoOptionSerializer,
        responses=REPOSITORY.serializer,
    )
    def patch(self, request, owner, repo):
        if not request.user.is_authenticated:
            raise NotFound()
        found, found_access = self.load(owner, repo)
        repo_settings.require_repo_admin(found_access)
        data = parse_body(EditRepoOptionSerializer, request.data)
        repo_settings.edit_repo(self.actor, found, repo_edit(data))
        if found.is_mirror:
            mirrors.edit_mirror(found, data.get("mirror_interval"), data.get("enable_prune"))
        return render_repo(self.actor, found)

    @extend_schema(tags=TAGS, operation_id="repoDelete", responses={204: None})
    def delete(self, request, owner, repo):
        if not request.user.is_authenticated:
            raise access_required()
        found, found_access = self.load(owner, repo)
        repositories.delete_repo_as(self.actor, found, found_access)
        return Response(status=204)


def repo_edit(data: dict) -> repo_settings.RepoEdit:
    def dict_or_none(key):
        value = data.get(key)
        return dict(value) if value is not None else None

    return repo_settings.RepoEdit(
        name=data.get("name"),
        description=data.get("description"),
        website=data.get("website"),
        private=data.get("private"),
        template=data.get("template"),
        default_branch=data.get("default_branch"),
        has_code=data.get("has_code"),
        has_issues=data.get("has_issues"),
        internal_tracker=dict_or_none("internal_tracker"),
        external_tracker=dict_or_none("external_tracker"),
        has_wiki=data.get("has_wiki"),
        external_wiki=dict_or_none("external_wiki"),
        has_pull_requests=data.get("has_pull_requests"),
        pull_flags={key: data[key] for key in PULL_DEFAULTS if data.get(key) is not None},
        has_projects=data.get("has_projects"),
        projects_mode=data.get("projects_mode"),
        has_releases=data.get("has_releases"),
        has_packages=data.get("has_packages"),
        has_actions=data.get("has_actions"),
        archived=data.get("archived"),
    )


class RepoByIdView(RepoViewMixin, APIView):
    require_signin = True

    @extend_schema(tags=TAGS, operation_id="repoGetByID", responses=REPOSITORY.serializer)
    def get(self, request, id):
        found = Repository.objects.select_related("owner").filter(pk=id).first()
        if found is None or not access.repo_access(self.actor, found).can_see:
            raise NotFound()
        require_public_repo(self.actor, found)
        return render_repo(self.actor, found)


class RepoForksView(RepoViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="listForks", responses=REPOSITORY.serializer(many=True))
    def get(self, request, owner, repo):
        found, _ = self.load(owner, repo)
        return repos_page(self, visible_rows(FORKS, self.actor, parent=found.pk))

    @extend_schema(
        tags=TAGS,
        operation_id="createFork",
        request=CreateForkOptionSerializer,
        responses={202: REPOSITORY.serializer},
    )
    def post(self, request, owner, repo):
        if not request.user.is_authenticated:
            raise access_required()
        found, _ = self.load(owner, repo)
        data = parse_body(CreateForkOptionSerializer, request.data)
        target = self.actor.owner
        if data.get("organization"):
            target = visible_org(self.actor, data["organization"])
        fork = repositories.fork_repo(self.actor, found, target, data.get("name") or found.name)
        return render_repo(self.actor, fork, status=202)


class RepoTopicsView(RepoViewMixin, APIView):
    @extend_schema(tags=TAGS, operation_id="repoListTopics", responses=TOPIC_NAME.serializer)
    def get(self, request, owner, repo):
        found, _ = self.load(owner, repo)
        return Response(TOPIC_NAME.render(found))

    @extend_schema(
        tags=TAGS,
        operation_id="repoUpdateTopics",
        request=RepoTopicOptionsSerializer,
        responses={204: None},
    )
    def put(self, request, owner, repo):
        if not request.user.is_authenticated:
            raise access_required()
        found, found_access = self.load(owner, repo)
        repo_settings.require_repo_admin(found_access)
        data = parse_body(RepoTopicOptionsSerializer, request.data)
        invalid = repo_settings.set_topics(found, data["topics"])
        if invalid:
            return Response({"message": "invalid topics", "invalidTopics": invalid}, status=422)
        return Response(status=204)


class RepoCollaboratorsView(RepoViewMixin, APIView):
    require_signin = True

    @extend_schema(
        tags=TAGS, operation_id="repoListCollaborators", responses=USER.serializer(many=True)
    )
    def get(self, request, owner, repo):
        found, _ = self.load(owner, repo)
        users = Owner.objects.filter(collaborations__repo=found).select_related("user")
        page = self.paginate(users.order_by("lower_name", "id"))
        data = [render_user(self.actor, user) for user in page]
        return self.paginator.get_paginated_response(data)


class RepoCollaboratorView(RepoViewMixin, APIView):
    require_signin = True

    def collaborator(self, username):
        return visible_owner(self.actor, username)

    @extend_schema(tags=TAGS, operation_id="repoCheckCollaborator", responses={204: None})
    def get(self, request, owner, repo, collaborator):
        found, _ = self.load(owner, repo)
        user = self.collaborator(collaborator)
        if not collaborators.is_collaborator(found, user):
            raise NotFound()
        return Response(status=204)

    @extend_schema(
        tags=TAGS,
        operation_id="repoAddCollaborator",
        request=AddCollaboratorOptionSerializer,
        responses={204: None},
    )
    def put(self, request, owner, repo, collaborator):
        found, found_access = self.load(owner, repo)
        repo_settings.require_repo_admin(found_access)
        data = parse_body(AddCollaboratorOptionSerializer, request.data or {})
        collaborators.add_collaborator(
            found, self.collaborator(collaborator), data.get("permission") or ""
        )
        return Response(status=204)

    @extend_schema(tags=TAGS, operation_id="repoDeleteCollaborator", responses={204: None})
    def delete(self, request, owner, repo, collaborator):
        found, found_access = self.load(owner, repo)
        repo_settings.require_repo_admin(found_access)
        collaborators.remove_collaborator(found, self.collaborator(collaborator))
        return Response(status=204)
