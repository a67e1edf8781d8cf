"""Gitea's error body: {"message": "...", "url": "<ROOT_URL>/api/swagger"}; 404 adds "errors".

The one place that maps the domain errors of codehost.errors to the wire: WIRE below.
"""

from dataclasses import dataclass

from django.conf import settings
from django.http import JsonResponse
from rest_framework.exceptions import APIException, ParseError, UnsupportedMediaType
from rest_framework.response import Response

from codehost import errors as domain
from config.exceptions import describe


@dataclass(frozen=True)
class Wire:
    status: int
    # Gitea answers refusals of the account itself with {"message"} alone.
    bare: bool = False


WIRE = {
    domain.Rejected.code: Wire(400),
    domain.Forbidden.code: Wire(403),
    domain.AccountRefused.code: Wire(403, bare=True),
    domain.NotFound.code: Wire(404),
    domain.Conflict.code: Wire(409),
    domain.Invalid.code: Wire(422),
    domain.Archived.code: Wire(423),
    domain.CallerBusy.code: Wire(429),
    domain.InternalError.code: Wire(500),
    domain.ServerBusy.code: Wire(503),
}


class AccountDisabled(APIException):
    """Gitea's verifyAuthWithOptions: right credentials of an account that may not sign in
    (deactivated) are refused with 403 and {"message"} alone, never a 401 that has a
    client ask for (or drop) credentials. An APIException, so DRF leaves the request
    anonymous when authentication raises it."""

    status_code = 403
    default_detail = (
        "This account is prohibited from signing in, please contact your site administrator."
    )


def swagger_url() -> str:
    return f"{settings.EXTERNAL_URL}/api/swagger"


def gitea_error_body(status: int, message: str, errors: list | None = None) -> dict:
    body = {"message": message, "url": swagger_url()}
    if status == 404:
        body["errors"] = errors
    return body


def gitea_exception_handler(exc, context):
    if isinstance(exc, AccountDisabled):
        return Response({"message": str(exc.detail)}, status=exc.status_code)
    if isinstance(exc, domain.DomainError):
        wire = WIRE[exc.code]
        if wire.bare:
            return Response({"message": exc.message}, status=wire.status)
        status, message = wire.status, exc.message
        retry_after = getattr(exc, "retry_after", None)
        headers = {"Retry-After": str(retry_after)} if retry_after else {}
    else:
        info = describe(exc, context)
        status, message, headers = info.status, info.message, info.headers
        if isinstance(exc, ParseError | UnsupportedMediaType):
            # Gitea's binder answers unreadable bodies with 422 "[]: <decoder error>".
            status, message = 422, f"[]: {message}"
    if status == 500:
        request = context.get("request")
        # The signed-in user if authentication finished (it may be what failed).
        user = vars(request).get("_user") if request is not None else None
        # Gitea hides 500 details from everybody but site admins; we log them instead.
        message = "" if not getattr(user, "is_superuser", False) else message
    return Response(gitea_error_body(status, message), status=status, headers=headers)


def error_page(status: int) -> JsonResponse:
    """Django's own 400 or 500 under /api/v1/ (config/error_pages.py); a 500 says nothing,
    as Gitea's does to all but site admins."""
    body = gitea_error_body(status, "" if status == 500 else "bad request")
    return JsonResponse(
        body,
        status=status,
        content_type="application/json;charset=utf-8",
        json_dumps_params={"separators": (",", ":")},
    )
