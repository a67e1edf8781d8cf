"""Gitea's credential mechanisms, tried in Gitea's order: `?token=`/`?access_token=`, then
`Authorization: token|bearer <t>`, then Basic (user:password, or a token as username or
password). Any credential that is present but wrong is 401, even on public endpoints;
right credentials of a deactivated account are 403 (AccountDisabled), as Gitea answers.
"""

import re
from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from codehost.api.exceptions import AccountDisabled
from codehost.models import AccessToken
from config.auth import check_password_cached, deactivated_account, hash_token, parse_basic
from config.kept import KeptInstances, arg

INVALID_CREDENTIALS = "invalid username, password or token"
TOKEN_SHAPE = re.compile(r"[0-9a-fA-F]{40}")
# last_used_at is refreshed at most this often, so reads do not each cost a write.
LAST_USED_GRANULARITY = timedelta(minutes=1)


@dataclass
class Credential:
    """What `request.auth` holds: how the caller signed in, and their token if any."""

    scheme: str  # "basic", "token" or "query"
    token: AccessToken | None = None


# The token of a digest with its account and the account's namespace, in one indexed
# query compiled once: never cached, so a revoked token or a deactivated account is
# refused on the next request.
TOKEN = KeptInstances(
    AccessToken,
    ("user", "user__codehost_owner"),
    lambda tokens: tokens.filter(token_hash=arg("digest")),
)


def user_for_token(raw: str) -> AccessToken | None:
    """The token `raw` is, or None; AccountDisabled when its account is deactivated."""
    # Gitea looks up only what has a token's shape (40 hex digits): a password sent by Basic
    # costs no token query.
    if not TOKEN_SHAPE.fullmatch(raw or ""):
        return None
    token = TOKEN.first(digest=hash_token(raw))
    if token is not None and not token.user.is_active:
        raise AccountDisabled()
    if token is not None:
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_GRANULARITY:
            AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


class GiteaAuthentication(BaseAuthentication):
    def authenticate_header(self, request):
        return 'Basic realm="Gitea"'


class GiteaQueryTokenAuthentication(GiteaAuthentication):
    """Deprecated `?token=` / `?access_token=` (checked before the header, as Gitea does)."""

    def authenticate(self, request):
        raw = request.query_params.get("token") or request.query_params.get("access_token")
        if not raw:
            return None
        token = user_for_token(raw)
        if token is None:
            raise AuthenticationFailed(INVALID_CREDENTIALS)
        return (token.user, Credential("query", token))


class GiteaTokenAuthentication(GiteaAuthentication):
    """`Authorization: token <t>` or `bearer <t>`, scheme word case-insensitive."""

    def authenticate(self, request):
        scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() not in ("token", "bearer"):
            return None
        token = user_for_token(raw.strip())
        if token is None:
            raise AuthenticationFailed(INVALID_CREDENTIALS)
        return (token.user, Credential("token", token))


class GiteaBasicAuthentication(GiteaAuthentication):
    def authenticate(self, request):
        header = request.headers.get("Authorization", "")
        if not header.lower().startswith("basic "):
            return None
        credentials = parse_basic(header)
        if credentials is None:
            raise AuthenticationFailed(INVALID_CREDENTIALS)
        return authenticate_basic(request._request, *credentials)


def authenticate_basic(django_request, username: str, password: str):
    """(user, Credential) for Basic credentials, or AuthenticationFailed (SignInThrottled
    after too many failed passwords, AccountDisabled for a deactivated account's own).

    A token may travel as the username (with an empty or `x-oauth-basic` password) or
    as the password; it then counts as token authentication with its scopes. The token
    is tried first, as Gitea does: a token sign-in is never a failed password check.
    """
    token = user_for_token(username if password in ("", "x-oauth-basic") else password)
    if token is not None:
        return (token.user, Credential("basic", token))
    user = check_password_cached(django_request, username, password)
    if user is not None:
        return (user, Credential("basic"))
    if deactivated_account(username, password) is not None:
        raise AccountDisabled()
    raise AuthenticationFailed(INVALID_CREDENTIALS)


AUTHENTICATION_CLASSES = [
    GiteaQueryTokenAuthentication,
    GiteaTokenAuthentication,
    GiteaBasicAuthentication,
]
