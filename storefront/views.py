"""The OAuth 2 install flow as a store owner and an app see it.

`/apps/{app_id}/authorize` asks the signed-in owner to approve the app's scopes (the
page is skipped when they were granted before) and sends the browser back to the app's
redirect URI with `code` and `state`; `/apps/authorize/token` trades the code for a token.

django-oauth-toolkit is not used: Tiendanube's token answer carries the store as
`user_id` (a string) and comma-joined scopes with no expiry or refresh token, codes
and tokens belong to an installation (store + app) rather than to a user, and the API
reads the token from an `Authentication: bearer` header. Bending DOT to each of those
(custom validator, swapped models, response rewriting) costs more than the ~60 lines here.
"""

import hmac
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.views.defaults import page_not_found
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import APIException
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.parsers import StrictJSONParser
from storefront.errors import InvalidGrant
from storefront.models import App
from storefront.services import installations


def _redirect(uri: str, **params) -> HttpResponseRedirect:
    parts = urlsplit(uri)
    query = "&".join(filter(None, [parts.query, urlencode(params)]))
    return HttpResponseRedirect(urlunsplit(parts._replace(query=query)))


@login_required
def authorize(request, app_id: int):
    app = get_object_or_404(App, pk=app_id)
    stores = list(request.user.stores.order_by("pk"))
    state = request.POST.get("state", request.GET.get("state", ""))
    if request.method == "POST" and stores:
        if request.POST.get("decision") != "approve":
            return _redirect(app.redirect_uri, error="access_denied", state=state)
        store = next((s for s in stores if str(s.pk) == request.POST.get("store")), None)
        if store is not None:
            return _redirect(
                app.redirect_uri, code=installations.authorize(app, store), state=state
            )
    elif len(stores) == 1 and not installations.needs_consent(app, stores[0]):
        return _redirect(
            app.redirect_uri, code=installations.authorize(app, stores[0]), state=state
        )
    context = {
        "app": app,
        "stores": stores,
        "scopes": [scope for scope in app.scopes.split(",") if scope],
        "state": state,
    }
    return render(request, "storefront/authorize.html", context, status=200 if stores else 403)


class OAuthError(APIException):
    """An OAuth 2 error answer (RFC 6749 section 5.2)."""

    def __init__(self, error: str, description: str, status: int = 400):
        super().__init__(description)
        self.error, self.status_code = error, status


def oauth_exception_handler(exc, context):
    if isinstance(exc, InvalidGrant):
        exc = OAuthError("invalid_grant", exc.message)
    elif not isinstance(exc, OAuthError):
        detail = getattr(exc, "detail", "The request is malformed")
        exc = OAuthError("invalid_request", str(detail), getattr(exc, "status_code", 400))
    body = {"error": exc.error, "error_description": str(exc.detail)}
    return Response(body, status=exc.status_code)


@extend_schema(exclude=True)
class TokenView(APIView):
    """POST client_id, client_secret, grant_type=authorization_code, code: as JSON, as a
    urlencoded form (Java SDK, old docs' curl) or multipart (PHP SDK's curl array)."""

    authentication_classes = []
    permission_classes = [AllowAny]
    parser_classes = [StrictJSONParser, FormParser, MultiPartParser]
    http_method_names = ["post"]

    def get_exception_handler(self):
        return oauth_exception_handler

    def http_method_not_allowed(self, request, *args, **kwargs):
        """Tiendanube's token URL exists for POST only: a GET (a common mistake) finds
        nothing there, 404 like any unknown page, not 405."""
        return page_not_found(request._request, Http404())

    def post(self, request):
        data = request.data if hasattr(request.data, "get") else {}
        fields = {
            name: str(data.get(name, "") or "")
            for name in ("client_id", "client_secret", "grant_type", "code")
        }
        missing = [name for name, value in fields.items() if not value]
        if missing:
            raise OAuthError("invalid_request", f"Missing parameters: {', '.join(missing)}")
        if fields["grant_type"] != "authorization_code":
            raise OAuthError("unsupported_grant_type", "Only authorization_code is supported")
        app = _app(fields["client_id"])
        if app is None or not hmac.compare_digest(
            app.client_secret.encode(), fields["client_secret"].encode()
        ):
            raise OAuthError("invalid_client", "Client authentication failed", status=401)
        token, installation = installations.exchange_code(app, fields["code"])
        return Response(
            {
                "access_token": token,
                "token_type": "bearer",
                "scope": installation.scopes,
                "user_id": str(installation.store_id),
            }
        )


def _app(client_id: str) -> App | None:
    if not client_id.isdigit() or len(client_id) > 18:
        return None
    return App.objects.filter(pk=int(client_id)).first()
