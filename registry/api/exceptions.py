"""Harbor's error answers: the status of each error code, and the body
{"errors":[{"code": "<CODE>", "message": "<text>"}]}."""

from django.http import JsonResponse
from rest_framework.response import Response

from config.exceptions import describe
from registry.errors import RegistryError

# Harbor's error codes and their statuses: the one table both domain errors (by their
# code) and every other exception (DRF's, Django's, by their status) are answered from.
STATUS_OF_CODE = {
    "BAD_REQUEST": 400,
    "UNAUTHORIZED": 401,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "CONFLICT": 409,
    "PRECONDITION": 412,
    "REQUEST_ENTITY_TOO_LARGE": 413,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "UNPROCESSABLE_ENTITY": 422,
    "TOO_MANY_REQUEST": 429,
    "UNKNOWN": 500,
    "SERVICE_UNAVAILABLE": 503,
}
CODE_OF_STATUS = {status: code for code, status in STATUS_OF_CODE.items()}


def harbor_error_body(code: str, message: str) -> dict:
    return {"errors": [{"code": code, "message": message}]}


def harbor_exception_handler(exc, context):
    if isinstance(exc, RegistryError):
        body = harbor_error_body(exc.code, exc.message)
        return Response(body, status=STATUS_OF_CODE[exc.code])
    info = describe(exc, context)
    # An explicit Harbor code (upper case, as the paginator's) wins over the status's.
    code = info.code if info.code.isupper() else CODE_OF_STATUS.get(info.status, "UNKNOWN")
    return Response(harbor_error_body(code, info.message), status=info.status, headers=info.headers)


def error_page(status: int) -> JsonResponse:
    """Django's own 400 or 500 under /api/v2.0/ (config/error_pages.py)."""
    message = "internal server error" if status == 500 else "bad request"
    body = harbor_error_body(CODE_OF_STATUS.get(status, "UNKNOWN"), message)
    return JsonResponse(body, status=status, json_dumps_params={"separators": (",", ":")})
