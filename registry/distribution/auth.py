"""Who is calling `/v2/` and what they may do, the way Harbor's registry front does it.

Credentials are a Bearer token from `/service/token` (its `access` claim says what is
allowed) or HTTP Basic (checked live against the project roles). See `refuse` for what a
refused request gets.
"""

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from config.auth import check_password_cached, parse_basic
from config.signin_throttle import SignInThrottled
from registry import access
from registry.distribution import token
from registry.distribution.errors import (
    Denied,
    DistributionError,
    TooManyRequests,
    Unauthorized,
)
from registry.models import Project
from registry.services import robots

# Distribution actions and the registry permission each needs in the project.
ACTION_PERMISSIONS = {
    "pull": "artifact:read",
    "push": "artifact:push",
    "delete": "artifact:delete",
}


def project_name_of(repository_name: str) -> str:
    return repository_name.split("/", 1)[0]


def project_named(name: str) -> Project | None:
    # Token scopes and mount sources are names nothing validated: one holding a NUL names
    # no project (and PostgreSQL text cannot even hold it).
    if "\x00" in name:
        return None
    return Project.objects.filter(name=name).first()


# Distribution actions and the permission a robot needs for each (Harbor's names).
ROBOT_ACTIONS = {
    "pull": ("repository", "pull"),
    "push": ("repository", "push"),
    "delete": ("artifact", "delete"),
}


def live_actions(user, repository_name: str) -> set[str]:
    """What `user` may do in the repository: pull, push, delete (`*` for project admins)."""
    project = project_named(project_name_of(repository_name))
    if project is None:
        return set()
    robot = access.robot_of(user)
    if robot:
        granted = {
            action
            for action, (resource, verb) in ROBOT_ACTIONS.items()
            if robot.allows("project", project.pk, resource, verb)
        }
        if access.project_is_public(project):
            granted.add("pull")
        return granted
    granted = {
        action
        for action, permission in ACTION_PERMISSIONS.items()
        if access.can(user, project, permission)
    }
    if access.can(user, project, "project:delete"):
        granted.add("*")
    return granted


def grant(user, scopes: list[token.Scope]) -> list[token.Scope]:
    """The token service's decision: the requested actions the user holds, per scope."""
    granted = []
    for scope in scopes:
        if scope.type == "repository":
            held = live_actions(user, scope.name)
            if "*" in scope.actions:
                # Asked for everything (skopeo's delete does): what the caller holds, as
                # Harbor's token service grants whatever is asked.
                allowed = set(held)
            elif "*" in held:
                # `*` is held by project admins only, and covers every action.
                allowed = set(scope.actions)
            else:
                allowed = set(scope.actions & held)
        elif scope.type == "registry" and scope.name == "catalog":
            allowed = set(scope.actions) if may_list_catalog(user) else set()
        else:
            allowed = set()
        granted.append(token.Scope(scope.type, scope.name, frozenset(allowed)))
    return granted


def may_list_catalog(user) -> bool:
    robot = access.robot_of(user)
    if robot:
        return robot.allows("system", "/", "catalog", "read")
    return access.is_sysadmin(user)


@dataclass
class Caller:
    user: object = field(default_factory=AnonymousUser)
    # The token's grants as {(type, name): actions}; None when permissions are checked live.
    token_access: dict | None = None
    # How the caller presented itself: "", "basic" or "bearer" (a token that did not verify
    # counts as no credentials: the client should fetch a new one).
    scheme: str = ""
    # The token's subject (who fetched it), for the audit log.
    subject: str = ""
    _live: dict = field(default_factory=dict)

    @property
    def authenticated(self) -> bool:
        return self.token_access is not None or self.user.is_authenticated

    @property
    def username(self) -> str:
        if self.user.is_authenticated:
            return self.user.get_username()
        return self.subject or "anonymous"

    def actions(self, repository_name: str) -> set[str]:
        if self.token_access is not None:
            return set(self.token_access.get(("repository", repository_name), ()))
        if repository_name not in self._live:
            self._live[repository_name] = live_actions(self.user, repository_name)
        return self._live[repository_name]

    def may(self, repository_name: str, action: str) -> bool:
        held = self.actions(repository_name)
        return action in held or "*" in held

    def may_list_catalog(self) -> bool:
        if self.token_access is not None:
            return bool(self.token_access.get(("registry", "catalog")))
        return may_list_catalog(self.user)


def identify(request) -> Caller:
    header = request.headers.get("Authorization", "")
    scheme, _, credentials = header.partition(" ")
    if scheme.lower() == "bearer":
        claims = token.verify(credentials.strip())
        if claims is None:
            return Caller()
        entries = claims.get("access") or []
        grants = {
            (entry.get("type"), entry.get("name")): frozenset(entry.get("actions") or ())
            for entry in entries
            if isinstance(entry, dict)
        }
        return Caller(token_access=grants, scheme="bearer", subject=claims.get("sub") or "")
    basic = parse_basic(header)
    if basic is not None and "\x00" in basic[0]:
        # No account is named with a NUL (nor can PostgreSQL text hold one): wrong credentials.
        return Caller(scheme="basic")
    if basic is not None:
        try:
            # A robot's secret that does not match falls through to the password check,
            # which counts the failure like any other.
            user = robots.authenticate(request, *basic) or check_password_cached(request, *basic)
        except SignInThrottled as error:
            raise TooManyRequests(
                str(error), headers={"Retry-After": str(error.retry_after)}
            ) from error
        return Caller(user=user or AnonymousUser(), scheme="basic")
    return Caller()


def bearer_challenge(scope: str = "", error: str = "") -> str:
    value = (
        f'Bearer realm="{settings.EXTERNAL_URL}/service/token",'
        f'service="{settings.REGISTRY_TOKEN_SERVICE}"'
    )
    if scope:
        value += f',scope="{scope}"'
    if error:
        value += f',error="{error}"'
    return value


def refuse(caller: Caller, scope: str = "", message: str | None = None) -> DistributionError:
    """The refusal for a caller lacking access to `scope`.

    Basic credentials get Harbor's 401 with `Basic realm="harbor"`. A valid token without
    the scope gets 403 DENIED with a challenge naming the scope needed, on which token
    clients (oras among them) fetch a wider token. No credentials: 401 and the challenge.
    """
    if caller.scheme == "basic":
        return Unauthorized(message, headers={"WWW-Authenticate": 'Basic realm="harbor"'})
    if caller.scheme == "bearer" and scope:
        challenge = bearer_challenge(scope, "insufficient_scope")
        return Denied(message, headers={"WWW-Authenticate": challenge})
    return Unauthorized(message, headers={"WWW-Authenticate": bearer_challenge(scope)})


def require(caller: Caller, repository_name: str, action: str) -> None:
    """Refuse (see `refuse`) unless the caller may do `action` in the repository."""
    if caller.may(repository_name, action):
        return
    scope_actions = "pull,push" if action == "push" else action
    scope = f"repository:{repository_name}:{scope_actions}"
    message = None
    if caller.authenticated and project_named(project_name_of(repository_name)) is None:
        message = f"project {project_name_of(repository_name)} not found"
    raise refuse(caller, scope, message)
