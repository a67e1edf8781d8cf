"""Accounts, tokens, organizations, stars and blocks: what Gitea's clients call around
teams and repositories."""

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from codehost import access
from codehost.api.authentication import Credential
from codehost.api.base import GiteaViewMixin
from codehost.api.serializers.bodies import (
    CreateAccessTokenOptionSerializer,
    CreateOrgOptionSerializer,
    CreateRepoOptionSerializer,
    CreateUserOptionSerializer,
    parse_body,
)
from codehost.api.serializers.repos import REPOSITORY
from codehost.api.serializers.users import (
    ACCESS_TOKEN,
    API_SETTINGS,
    ORGANIZATION,
    USER,
    VERSION,
)
from codehost.api.views.common import (
    render_org,
    render_repo,
    render_user,
    repos_page,
    require_public_org,
    require_public_user,
    visible_org,
    visible_owner,
    visible_repo,
    visible_user,
)
from codehost.api.views.repos import repo_options
from codehost.errors import Forbidden, NotFound
from codehost.models import AccessToken, Owner, Repository
from codehost.services import accounts, blocks, repositories, stars
from codehost.services import orgs as org_service


class AdminViewMixin(GiteaViewMixin):
    token_scopes = ["admin"]
    require_signin = True

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        handled = hasattr(self, request.method.lower())
        if handled and not request.user.is_superuser:
            raise Forbidden("user should be the site admin")


class AdminUsersView(AdminViewMixin, APIView):
    @extend_schema(
        tags=["admin"],
        operation_id="adminCreateUser",
        request=CreateUserOptionSerializer,
        responses={201: USER.serializer},
    )
    def post(self, request):
        data = parse_body(CreateUserOptionSerializer, request.data)
        owner = accounts.create_user(
            username=data["username"],
            email=data["email"],
            password=data.get("password") or "",
            full_name=data.get("full_name") or "",
            visibility=data.get("visibility") or "",
            # Gitea's default is true: clients that act as the new user send false.
            must_change_password=data.get("must_change_password") is not False,
        )
        return Response(render_user(self.actor, owner), status=201)


class AdminUserView(AdminViewMixin, APIView):
    """DELETE /admin/users/{username}: the account goes from all three services, refused
    (422, Gitea's wording) while it owns repositories, belongs to organizations or owns
    stores. `purge` (delete what it owns first) is not offered: owners delete or transfer
    their repositories themselves."""

    @extend_schema(tags=["admin"], operation_id="adminDeleteUser", responses={204: None})
    def delete(self, request, username):
        accounts.delete_user(request.user, username)
        return Response(status=204)


class AdminUserOrgsView(AdminViewMixin, APIView):
    """POST /admin/users/{username}/orgs: how py-gitea creates organizations."""

    @extend_schema(
        tags=["admin"],
        operation_id="adminCreateOrg",
        request=CreateOrgOptionSerializer,
        responses={201: ORGANIZATION.serializer},
    )
    def post(self, request, username):
        creator = visible_user(self.actor, username)
        org = org_service.create_org(creator, org_options(request.data))
        return Response(render_org(self.actor, org), status=201)


class AdminUserReposView(AdminViewMixin, APIView):
    """POST /admin/users/{username}/repos: how py-gitea creates repositories."""

    @extend_schema(
        tags=["admin"],
        operation_id="adminCreateRepo",
        request=CreateRepoOptionSerializer,
        responses={201: REPOSITORY.serializer},
    )
    def post(self, request, username):
        owner = visible_owner(self.actor, username)
        options = repo_options(parse_body(CreateRepoOptionSerializer, request.data))
        repo = repositories.create_repo(self.actor, owner, options)
        return render_repo(self.actor, repo, status=201)


def org_options(data) -> org_service.OrgOptions:
    values = parse_body(CreateOrgOptionSerializer, data)
    return org_service.OrgOptions(
        username=values["username"],
        full_name=values.get("full_name") or "",
        email=values.get("email") or "",
        description=values.get("description") or "",
        website=values.get("website") or "",
        location=values.get("location") or "",
        visibility=values.get("visibility") or "",
        repo_admin_change_team_access=bool(values.get("repo_admin_change_team_access")),
    )


class CurrentUserView(GiteaViewMixin, APIView):
    token_scopes = ["user"]
    require_signin = True

    @extend_schema(tags=["user"], operation_id="userGetCurrent", responses=USER.serializer)
    def get(self, request):
        owner = Owner.objects.select_related("user").get(pk=self.actor.owner.pk)
        return Response(render_user(self.actor, owner))


class UserView(GiteaViewMixin, APIView):
    token_scopes = ["user"]

    @extend_schema(tags=["user"], operation_id="userGet", responses=USER.serializer)
    def get(self, request, username):
        # Gitea keeps users and organizations in one table: an organization is read here
        # too, as a User record.
        owner = visible_owner(self.actor, username)
        if owner.is_organization:
            # Stricter than Gitea, whose user-scope check skips organizations: a
            # public-only token reaches no non-public organization by any route.
            require_public_org(self.actor, owner)
        else:
            require_public_user(self.actor, owner)
        return Response(render_user(self.actor, owner))


class TokenAccountMixin(GiteaViewMixin):
    token_scopes = ["user"]
    require_signin = True

    def account(self, request, username):
        credential = request.auth
        # Gitea creates and lists tokens only for Basic-authenticated callers.
        if not isinstance(credential, Credential) or credential.scheme != "basic":
            raise AuthenticationFailed("auth required")
        target = visible_owner(self.actor, username)
        return accounts.token_account(self.actor, target, username)


class UserTokensView(TokenAccountMixin, APIView):
    @extend_schema(
        tags=["user"], operation_id="userGetTokens", responses=ACCESS_TOKEN.serializer(many=True)
    )
    def get(self, request, username):
        tokens = AccessToken.objects.filter(user=self.account(request, username)).order_by("-id")
        page = self.paginate(tokens)
        data = [ACCESS_TOKEN.render(token) for token in page]
        return self.paginator.get_paginated_response(data)

    @extend_schema(
        tags=["user"],
        operation_id="userCreateToken",
        request=CreateAccessTokenOptionSerializer,
        responses={201: ACCESS_TOKEN.serializer},
    )
    def post(self, request, username):
        user = self.account(request, username)
        data = parse_body(CreateAccessTokenOptionSerializer, request.data)
        token, raw = accounts.create_token(user, data["name"], data.get("scopes") or [])
        body = ACCESS_TOKEN.render(token, {"raw_token": raw})
        return Response(body, status=201)


class UserTokenView(TokenAccountMixin, APIView):
    @extend_schema(tags=["user"], operation_id="userDeleteAccessToken", responses={204: None})
    def delete(self, request, username, token):
        accounts.delete_token(self.account(request, username), token)
        return Response(status=204)


class OrgsView(GiteaViewMixin, APIView):
    token_scopes = ["organization"]

    @extend_schema(
        tags=["organization"],
        operation_id="orgGetAll",
        responses=ORGANIZATION.serializer(many=True),
    )
    def get(self, request):
        orgs = access.visible_orgs(self.actor)
        page = self.paginate(orgs.order_by("lower_name", "id"))
        return self.paginator.get_paginated_response([render_org(self.actor, o) for o in page])

    @extend_schema(
        tags=["organization"],
        operation_id="orgCreate",
        request=CreateOrgOptionSerializer,
        responses={201: ORGANIZATION.serializer},
    )
    def post(self, request):
        if not request.user.is_authenticated:
            raise NotAuthenticated("token is required")
        org = org_service.create_org(self.actor.owner, org_options(request.data))
        return Response(render_org(self.actor, org), status=201)


class OrgView(GiteaViewMixin, APIView):
    token_scopes = ["organization"]

    @extend_schema(tags=["organization"], operation_id="orgGet", responses=ORGANIZATION.serializer)
    def get(self, request, org):
        return Response(render_org(self.actor, visible_org(self.actor, org)))


class OrgMembersView(GiteaViewMixin, APIView):
    token_scopes = ["organization"]
    require_signin = True

    @extend_schema(
        tags=["organization"], operation_id="orgListMembers", responses=USER.serializer(many=True)
    )
    def get(self, request, org):
        org = visible_org(self.actor, org)
        users = access.visible_org_members(self.actor, org).select_related("user")
        page = self.paginate(users.order_by("lower_name", "id"))
        return self.paginator.get_paginated_response([render_user(self.actor, u) for u in page])


class VersionView(GiteaViewMixin, APIView):
    @extend_schema(tags=["miscellaneous"], operation_id="getVersion", responses=VERSION.serializer)
    def get(self, request):
        return Response(VERSION.render(settings))


class APISettingsView(GiteaViewMixin, APIView):
    @extend_schema(
        tags=["settings"], operation_id="getGeneralAPISettings", responses=API_SETTINGS.serializer
    )
    def get(self, request):
        return Response(API_SETTINGS.render(self.pagination_class))


class StarredView(GiteaViewMixin, APIView):
    token_scopes = ["user", "repository"]
    require_signin = True

    @extend_schema(
        tags=["user"],
        operation_id="userCurrentListStarred",
        responses=REPOSITORY.serializer(many=True),
    )
    def get(self, request):
        repos = access.visible_repos(
            self.actor, Repository.objects.filter(stars__user=self.actor.owner)
        )
        return repos_page(self, repos.order_by("-stars__created_at"))


class StarView(GiteaViewMixin, APIView):
    token_scopes = ["user", "repository"]
    require_signin = True

    @extend_schema(tags=["user"], operation_id="userCurrentCheckStarring", responses={204: None})
    def get(self, request, owner, repo):
        found, _ = visible_repo(self.actor, owner, repo)
        if not stars.is_starred(self.actor.owner, found):
            raise NotFound()
        return Response(status=204)

    @extend_schema(
        tags=["user"], operation_id="userCurrentPutStar", request=None, responses={204: None}
    )
    def put(self, request, owner, repo):
        found, _ = visible_repo(self.actor, owner, repo)
        stars.star(self.actor.owner, found)
        return Response(status=204)

    @extend_schema(tags=["user"], operation_id="userCurrentDeleteStar", responses={204: None})
    def delete(self, request, owner, repo):
        found, _ = visible_repo(self.actor, owner, repo)
        stars.unstar(self.actor.owner, found)
        return Response(status=204)


class UserBlockView(GiteaViewMixin, APIView):
    token_scopes = ["user"]
    require_signin = True

    def blockee(self, username):
        return visible_user(self.actor, username)

    @extend_schema(tags=["user"], operation_id="userCheckUserBlock", responses={204: None})
    def get(self, request, username):
        blockee = self.blockee(username)
        if not blocks.is_blocked(self.actor.owner, blockee):
            raise NotFound()
        return Response(status=204)

    @extend_schema(tags=["user"], operation_id="userBlockUser", request=None, responses={204: None})
    def put(self, request, username):
        note = request.query_params.get("note", "")
        blocks.block_user(self.actor.owner, self.blockee(username), note)
        return Response(status=204)

    @extend_schema(tags=["user"], operation_id="userUnblockUser", responses={204: None})
    def delete(self, request, username):
        blocks.unblock_user(self.actor.owner, self.blockee(username))
        return Response(status=204)
