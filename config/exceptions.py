"""The one place that turns any exception raised in an API view into a status and a message.

Each service renders the result in its own error body (see `<app>/api/exceptions.py`).
"""

import logging
from dataclasses import dataclass, field

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import DataError
from django.http import Http404
from rest_framework import exceptions

logger = logging.getLogger("api")


@dataclass
class APIErrorInfo:
    status: int
    message: str
    code: str = ""
    # Field errors of a validation failure, as {field: [messages]}.
    fields: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)
    exc: Exception | None = None


def flatten_detail(detail) -> str:
    """One readable sentence from DRF's nested `detail` (str, list or dict)."""
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {flatten_detail(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(flatten_detail(item) for item in detail)
    return str(detail)


def field_errors(detail) -> dict:
    if isinstance(detail, dict):
        return {
            # A nested error (a list item's, a sub-object's) is one readable sentence.
            key: [flatten_detail(item) for item in (value if isinstance(value, list) else [value])]
            for key, value in detail.items()
        }
    return {}


def describe(exc: Exception, context: dict) -> APIErrorInfo:
    """Status and message for `exc`; unexpected exceptions are logged and become a bare 500."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    elif isinstance(exc, RequestDataTooBig):
        exc = exceptions.APIException("The request body is too large")
        exc.status_code = 413
    elif isinstance(exc, SuspiciousOperation):
        # Django's own answer to these is a 400 (more query or form fields than
        # DATA_UPLOAD_MAX_NUMBER_FIELDS, a Host not allowed): the request is refused.
        logger.info("refused a suspicious request: %s", exc.__class__.__name__)
        too_many = isinstance(exc, TooManyFieldsSent | TooManyFilesSent)
        exc = exceptions.APIException("too many parameters" if too_many else "bad request")
        exc.status_code = 400
    elif isinstance(exc, DataError):
        # A value the database cannot hold (NUL byte, out of range) is bad input, not a crash.
        logger.info("rejected a value the database cannot store: %s", exc.__class__.__name__)
        exc = exceptions.ParseError("invalid input: a value cannot be stored")
    if isinstance(exc, exceptions.APIException):
        headers = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
        detail = exc.detail
        code = exc.get_codes() if not isinstance(detail, dict | list) else "invalid"
        return APIErrorInfo(
            status=exc.status_code,
            message=flatten_detail(detail),
            code=code if isinstance(code, str) else "invalid",
            fields=field_errors(detail),
            headers=headers,
            exc=exc,
        )
    request = context.get("request")
    logger.exception(
        "unhandled error in %s %s",
        getattr(request, "method", "?"),
        getattr(request, "path", "?"),
    )
    return APIErrorInfo(status=500, message="internal server error", code="error", exc=exc)
