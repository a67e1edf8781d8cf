from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, SessionAuthentication

from config.auth import check_password_cached, parse_basic
from registry.services import robots


class HarborBasicAuthentication(BaseAuthentication):
    """HTTP Basic as Harbor does it: wrong credentials do not fail the request, it just
    continues as anonymous and gets 401 only where a user is required. A robot's name and
    secret sign in the robot (an expired or disabled one stays anonymous)."""

    def authenticate(self, request):
        credentials = parse_basic(request.headers.get("Authorization", ""))
        if credentials is None:
            return None
        user = robots.authenticate(request._request, *credentials) or check_password_cached(
            request._request, *credentials
        )
        return (user, None) if user is not None else None

    def authenticate_header(self, request):
        return 'Basic realm="harbor"'


class HarborSessionAuthentication(SessionAuthentication):
    """The UI session cookie; CSRF is enforced only on these requests, as Harbor does."""


class HarborBasicScheme(OpenApiAuthenticationExtension):
    target_class = HarborBasicAuthentication
    name = "basic"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "basic"}


class HarborSessionScheme(OpenApiAuthenticationExtension):
    target_class = HarborSessionAuthentication
    name = "sid"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
