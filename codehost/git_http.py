"""Git smart HTTP at /{owner}/{repo}.git/...: clone, fetch and push through `git http-backend`.

Same credentials and the same rules as the API for them: Basic with a password or a token,
or a token in `Authorization: token|bearer` or `?token=`/`?access_token=` (token scopes
apply: read:repository to fetch, write:repository to push; a `public-only` token reaches
public repositories only; an account that must change its password, or a deactivated one,
is refused everything with 403);
anonymous callers may clone public repositories. A refusal to an anonymous caller is 401
with a Basic challenge, so git asks for credentials. A push is
recorded in the activity feed and refreshes the repository's updated_at, size and empty.
"""

import logging

from django.http import HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import AuthenticationFailed

from codehost import access, git
from codehost.api.authentication import authenticate_basic, user_for_token
from codehost.api.base import password_change_required
from codehost.api.exceptions import AccountDisabled
from codehost.errors import Forbidden, NotFound
from codehost.services import accounts, repositories
from config.auth import parse_basic
from config.signin_throttle import SignInThrottled

logger = logging.getLogger(__name__)

CHALLENGE = 'Basic realm="Gitea"'
SERVICES = {"git-upload-pack", "git-receive-pack"}
CHUNK = 65536


def _challenge(message: str = "Unauthorized") -> HttpResponse:
    response = HttpResponse(message + "\n", status=401, content_type="text/plain")
    response["WWW-Authenticate"] = CHALLENGE
    return response


def _plain(status: int, message: str) -> HttpResponse:
    return HttpResponse(message + "\n", status=status, content_type="text/plain")


def _caller(request):
    """(django user or None, token or None); AuthenticationFailed on a wrong credential.

    As Gitea's git routes take them: a token in `?token=`/`?access_token=` or in
    `Authorization: token|bearer <t>` (what CI jobs set with http.extraHeader), else Basic
    with a password or a token.
    """
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    raw = request.GET.get("token") or request.GET.get("access_token")
    if not raw and scheme.lower() in ("token", "bearer"):
        raw = value.strip()
    if raw:
        token = user_for_token(raw)
        if token is None:
            raise AuthenticationFailed()
        return token.user, token
    if not header:
        return None, None
    credentials = parse_basic(header)
    if credentials is None:
        raise AuthenticationFailed()
    user, credential = authenticate_basic(request, *credentials)
    return user, credential.token


def _service(request, rest: str) -> str | None:
    if rest == "info/refs":
        return request.GET.get("service")
    return rest if rest in SERVICES else None


def _body(request):
    """The request body as it arrives (chunked uploads read to EOF), never all in memory."""
    stream = request.environ["wsgi.input"]
    length = request.META.get("CONTENT_LENGTH")
    remaining = int(length) if length and length.isdigit() else None
    while remaining is None or remaining > 0:
        size = CHUNK if remaining is None else min(CHUNK, remaining)
        chunk = stream.read(size)
        if not chunk:
            break
        if remaining is not None:
            remaining -= len(chunk)
        yield chunk


@csrf_exempt
def smart_http(request, owner: str, repo: str, rest: str):
    service = _service(request, rest)
    if rest in SERVICES and request.method != "POST":
        return _plain(405, "Method Not Allowed")
    pushing = service == "git-receive-pack"
    try:
        user, token = _caller(request)
    except AuthenticationFailed:
        return _challenge()
    except AccountDisabled:
        # Gitea's git handler refuses such an account (httpBase); a 403 has git stop
        # without asking for, or dropping, the stored credentials.
        return _plain(403, "Your account is disabled.")
    except SignInThrottled as error:
        response = _plain(429, str(error))
        response["Retry-After"] = str(error.retry_after)
        return response
    actor = access.Actor()
    if user is not None:
        try:
            actor = access.Actor(
                owner=accounts.user_owner(user),
                is_admin=user.is_superuser,
                public_only=token is not None and accounts.PUBLIC_ONLY in token.scope_list,
            )
        except Forbidden:
            return _plain(403, "this account has no code hosting namespace")
        if actor.owner.must_change_password:
            # As every API call of such an account: a password is to be changed first.
            return _plain(403, password_change_required())
    if token is not None and not accounts.scopes_allow(token.scope_list, ["repository"], pushing):
        return _plain(403, "token does not have the required scope")
    try:
        found, _ = repositories.resolve_repo(owner, repo)
    except NotFound:
        return _plain(404, "Not found") if actor.signed_in else _challenge()
    repo_access = access.repo_access(actor, found)
    allowed = repo_access.can_write_code if pushing else repo_access.can_read_code
    if not allowed:
        if not actor.signed_in:
            return _challenge()
        if not repo_access.can_see:
            return _plain(404, "Not found")
        return _plain(403, "User permission denied")
    if actor.public_only and found.private:
        return _plain(403, "token scope is limited to public repos")
    if pushing and (found.is_archived or found.is_mirror):
        return _plain(
            403, "repo is archived" if found.is_archived else "mirror repository is read-only"
        )

    path = git.repo_path(found.owner.name, found.name)
    on_finish = None
    if pushing and request.method == "POST":
        try:
            before = git.refs(path)
        except (FileNotFoundError, git.GitError):
            # Renamed or deleted since it was resolved: as if the push came after that.
            return _plain(404, "Not found")
        repo_id = found.pk
        pusher = actor.owner

        def on_finish(returncode):
            try:
                # Read where it is now: a rename while git received has moved it.
                current = repositories.directory_of(repo_id)
                if current is not None:
                    repositories.record_push(repo_id, pusher, before, git.refs(current))
            except Exception:  # the push itself succeeded; never fail the client for this
                logger.exception("could not record push to repository %s", repo_id)

    cgi_env = {
        "REQUEST_METHOD": request.method,
        "QUERY_STRING": request.META.get("QUERY_STRING", ""),
        "CONTENT_TYPE": request.META.get("CONTENT_TYPE", ""),
        "REMOTE_ADDR": request.META.get("REMOTE_ADDR", ""),
        "REMOTE_USER": actor.owner.name if actor.signed_in else "",
    }
    if request.META.get("CONTENT_LENGTH"):
        cgi_env["CONTENT_LENGTH"] = request.META["CONTENT_LENGTH"]
    for header, variable in (
        ("Content-Encoding", "HTTP_CONTENT_ENCODING"),
        ("Git-Protocol", "GIT_PROTOCOL"),
    ):
        if request.headers.get(header):
            cgi_env[variable] = request.headers[header]
    relative = path.relative_to(git.root())
    result = git.http_backend(f"/{relative}/{rest}", cgi_env, _body(request), on_finish)
    response = StreamingHttpResponse(result.body, status=result.status)
    for name, value in result.headers:
        response[name] = value
    return response
