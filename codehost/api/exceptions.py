"""Gitea's error body: {"message": "...", "url": "<ROOT_URL>/api/swagger"}; 404 adds "errors"."""

from django.conf import settings
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.response import Response

from codehost.errors import BareForbidden
from config.exceptions import describe


def swagger_url() -> str:
    return f"{settings.EXTERNAL_URL}/api/swagger"


def gitea_error_body(status: int, message: str, errors: list | None = None) -> dict:
    body = {"message": message, "url": swagger_url()}
    if status == 404:
        body["errors"] = errors
    return body


def gitea_exception_handler(exc, context):
    if isinstance(exc, BareForbidden):
        return Response({"message": str(exc.detail)}, status=403)
    info = describe(exc, context)
    status = info.status
    message = info.message
    if isinstance(exc, ParseError | UnsupportedMediaType):
        # Gitea's binder answers unreadable bodies with 422 "[]: <decoder error>".
        status, message = 422, f"[]: {message}"
    if status == 500:
        request = context.get("request")
        user = getattr(request, "user", None)
        # Gitea hides 500 details from everybody but site admins; we log them instead.
        message = "" if not getattr(user, "is_superuser", False) else message
    return Response(gitea_error_body(status, message), status=status, headers=info.headers)
