from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from config.auth import check_password_cached, parse_basic

INVALID_CREDENTIALS = "invalid username, password or token"


class GiteaBasicAuthentication(BaseAuthentication):
    """HTTP Basic; unlike Harbor, a wrong credential is 401 even on public endpoints."""

    def authenticate(self, request):
        header = request.headers.get("Authorization", "")
        if not header.lower().startswith("basic "):
            return None
        credentials = parse_basic(header)
        user = check_password_cached(request._request, *credentials) if credentials else None
        if user is None:
            raise AuthenticationFailed(INVALID_CREDENTIALS)
        return (user, "basic")

    def authenticate_header(self, request):
        return 'Basic realm="Gitea"'
