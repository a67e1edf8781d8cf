"""Gitea v1 wire conventions, set once for every code hosting API view."""

import logging
from functools import cached_property

from django.conf import settings
from rest_framework.exceptions import NotAuthenticated
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from codehost.access import Actor
from codehost.api.authentication import AUTHENTICATION_CLASSES, Credential
from codehost.api.exceptions import gitea_exception_handler
from codehost.api.pagination import GiteaPagination
from codehost.api.params import check_int64
from codehost.api.permissions import TokenScopePermission
from codehost.api.schema import GiteaAutoSchema
from codehost.api.views.common import RepoRedirect, redirect_response
from codehost.errors import AccountRefused, NotFound
from codehost.models import Owner
from codehost.services import accounts
from config.parsers import StrictJSONParser
from config.plain_json import PlainJSONRenderer
from config.views import ServiceViewMixin, UnknownPathView

logger = logging.getLogger(__name__)

CONTENT_TYPE = "application/json;charset=utf-8"
QUERY_TOKEN_WARNING = (
    "token and access_token API authentication is deprecated and will be removed in gitea "
    "1.23. Please use AuthorizationHeaderToken instead. Existing queries will continue to "
    "work but without authorization."
)


def password_change_required() -> str:
    return (
        f"You must change your password. Change it at: {settings.EXTERNAL_URL}/user/change_password"
    )


def refuse_password_change_pending(request) -> None:
    """Gitea answers every call of a user who must change their password with a bare 403."""
    if not request.user.is_authenticated:
        return
    try:
        owner = request.user.codehost_owner
    except Owner.DoesNotExist:
        return
    if owner.must_change_password:
        raise AccountRefused(password_change_required())


def act_as_sudo_user(request) -> None:
    """Gitea's sudo: `?sudo=<login>` or a `Sudo` header makes a site admin act as that user
    (the admin's token scopes still apply); anybody else is refused."""
    login = request.query_params.get("sudo") or request.headers.get("Sudo", "")
    if not login:
        return
    if not (request.user.is_authenticated and request.user.is_superuser):
        raise AccountRefused("Only administrators allowed to sudo.")
    owner = (
        Owner.objects.select_related("user")
        .filter(lower_name=login.lower(), kind=Owner.Kind.USER, user__isnull=False)
        .first()
    )
    if owner is None:
        raise NotFound(f"user does not exist [name: {login}]")
    logger.info("sudo: user %s acts as %s", request.user.pk, owner.user.pk)
    request.user = owner.user


class GiteaJSONRenderer(PlainJSONRenderer):
    charset = "utf-8"


class GiteaViewMixin(ServiceViewMixin):
    authentication_classes = AUTHENTICATION_CLASSES
    permission_classes = [TokenScopePermission]
    # Gitea binds JSON, urlencoded forms and multipart alike.
    parser_classes = [StrictJSONParser, FormParser, MultiPartParser]
    renderer_classes = [GiteaJSONRenderer]
    pagination_class = GiteaPagination
    exception_handler = staticmethod(gitea_exception_handler)
    schema = GiteaAutoSchema()
    # Token scope categories of the route; a dict maps HTTP methods to categories.
    token_scopes: list[str] | dict[str, list[str]] = []
    # Gitea's reqToken(): anonymous callers get 401 "token is required".
    require_signin = False

    def scope_categories(self, request) -> list[str]:
        if isinstance(self.token_scopes, dict):
            return self.token_scopes.get(request.method, self.token_scopes.get("*", []))
        return self.token_scopes

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # Path integers (<int:id>) have no upper bound in the URL pattern.
        for name, value in kwargs.items():
            if isinstance(value, int):
                check_int64(name, value)
        refuse_password_change_pending(request)
        act_as_sudo_user(request)
        # Unsupported methods fall through to dispatch, which answers 405 (not 401).
        handled = request.method.lower() in self.http_method_names and hasattr(
            self, request.method.lower()
        )
        if self.require_signin and handled and not request.user.is_authenticated:
            raise NotAuthenticated("token is required")

    @cached_property
    def actor(self) -> Actor:
        user = self.request.user
        if not user.is_authenticated:
            return Actor()
        credential = self.request.auth
        token = credential.token if isinstance(credential, Credential) else None
        return Actor(
            owner=accounts.user_owner(user),
            is_admin=user.is_superuser,
            public_only=token is not None and accounts.PUBLIC_ONLY in token.scope_list,
        )

    @property
    def paginator(self):
        if not hasattr(self, "_paginator"):
            self._paginator = self.pagination_class()
        return self._paginator

    def paginate(self, queryset, total: int | None = None):
        return self.paginator.paginate_queryset(queryset, self.request, view=self, total=total)

    def handle_exception(self, exc):
        if isinstance(exc, RepoRedirect):
            return redirect_response(
                self.request, self.kwargs["owner"], self.kwargs["repo"], exc.repo
            )
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response, Response) and response.data is not None:
            # Gitea writes no space after the semicolon; DRF would.
            response.content_type = CONTENT_TYPE
        response["X-Content-Type-Options"] = "nosniff"
        # What authentication found, without running it again: a request refused before
        # it finished (more query parameters than Django reads) would fail here once more.
        credential = vars(request).get("_auth")
        if isinstance(credential, Credential) and credential.scheme == "query":
            response["X-Gitea-Warning"] = QUERY_TOKEN_WARNING
        return response


class GiteaUnknownPathView(GiteaViewMixin, UnknownPathView):
    authentication_classes = []
    not_found_message = "not found"
