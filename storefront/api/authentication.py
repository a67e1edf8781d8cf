"""Access tokens as Tiendanube's SDKs send them: `Authentication: bearer <token>`.

The standard `Authorization: Bearer <token>` is accepted too (Tiendanube's 2026 partner
docs switched their samples to it). The scheme word is matched case-insensitively.
"""

from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from storefront.services import installations

INVALID_TOKEN = "Invalid access token"


def bearer_token(request) -> str | None:
    for header in ("Authentication", "Authorization"):
        scheme, _, token = request.headers.get(header, "").strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return None


class BearerTokenAuthentication(BaseAuthentication):
    """request.user is the store owner, request.auth the app's Installation."""

    def authenticate(self, request):
        token = bearer_token(request)
        if token is None:
            return None
        installation = installations.installation_for_token(token)
        if installation is None:
            raise AuthenticationFailed(INVALID_TOKEN)
        return installation.store.owner, installation

    def authenticate_header(self, request):
        return "bearer"
