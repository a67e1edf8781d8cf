"""Tiendanube's error bodies, for the API's own refusals and for the domain errors.

Field validation is a map {"field": ["message"]} with 422; bad JSON is {"error": "..."};
everything else is {"code": <status>, "message": <reason phrase>, "description": ...}.
"""

from http import HTTPStatus

from django.http import JsonResponse
from rest_framework.exceptions import APIException, ParseError
from rest_framework.response import Response

from config.exceptions import describe
from storefront.api.authentication import INVALID_TOKEN
from storefront.errors import (
    AlreadyExists,
    Invalid,
    InvalidGrant,
    Malformed,
    Missing,
    NotInstalled,
    ScopeMissing,
    StorefrontError,
)

# The status of each domain error (storefront.errors), by its code. The body is the field
# map when the error names fields, else the envelope with its message.
DOMAIN_STATUS = {
    Invalid.code: 422,
    Malformed.code: 400,
    ScopeMissing.code: 403,
    AlreadyExists.code: 409,
    Missing.code: 404,
    # The calling app was uninstalled after its token was checked (a script or webhook
    # created while the uninstall committed): its token is gone, as the next call finds.
    NotInstalled.code: 401,
    # Raised by the OAuth token view, which answers in its own format; listed so that
    # every domain error has its answer here.
    InvalidGrant.code: 400,
}


def tiendanube_error_body(status: int, description) -> dict:
    return {"code": status, "message": HTTPStatus(status).phrase, "description": description}


def tiendanube_exception_handler(exc, context):
    if isinstance(exc, StorefrontError):
        status = DOMAIN_STATUS[exc.code]
        message = INVALID_TOKEN if isinstance(exc, NotInstalled) else exc.message
        body = exc.fields or tiendanube_error_body(status, message)
        return Response(body, status=status)
    info = describe(exc, context)
    if isinstance(info.exc, ParseError):
        body = {"error": "Problems parsing JSON"}
    elif isinstance(info.exc, InvalidFields):
        body = {**tiendanube_error_body(422, "Validation error"), **info.exc.fields}
    elif info.fields and info.status in (400, 422):
        info.status = 422
        body = info.fields
    elif info.status == 500:
        body = tiendanube_error_body(500, None)
    else:
        body = tiendanube_error_body(info.status, info.message)
    return Response(body, status=info.status, headers=info.headers)


class PaymentRequired(APIException):
    status_code = 402
    default_detail = "The store or the app's subscription must be paid to use the API"


class TooManyRequests(APIException):
    status_code = 429
    default_detail = "Rate limit exceeded: the bucket is full, retry when it has leaked"


class MissingUserAgent(APIException):
    status_code = 400
    default_detail = "The User-Agent header is required: your app's name and a contact"


class InvalidFields(APIException):
    """Field errors in the envelope (the bulk endpoints' form):
    `{"code": 422, "message": ..., "description": "Validation error", "price": [...]}`."""

    status_code = 422

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("Validation error")
        self.fields = fields


class BadInput(APIException):
    """A bulk body of the wrong shape (400 in the envelope form)."""

    status_code = 400
    default_detail = "Invalid input format"


def error_page(status: int) -> JsonResponse:
    """Django's own 400 or 500 under /v1/ (config/error_pages.py)."""
    description = None if status == 500 else HTTPStatus(status).phrase
    body = tiendanube_error_body(status, description)
    return JsonResponse(body, status=status, json_dumps_params={"separators": (",", ":")})
