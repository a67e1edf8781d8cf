"""Harbor's error body: {"errors":[{"code": "<CODE>", "message": "<text>"}]}."""

from rest_framework.response import Response

from config.exceptions import describe

HARBOR_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT",
    412: "PRECONDITION",
    413: "REQUEST_ENTITY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_ENTITY",
    429: "TOO_MANY_REQUEST",
    500: "UNKNOWN",
}


def harbor_code(status: int, code: str) -> str:
    """An explicit Harbor code given by the view (upper case) wins over the status default."""
    if code and code.isupper():
        return code
    return HARBOR_CODES.get(status, "UNKNOWN")


def harbor_error_body(status: int, message: str, code: str = "") -> dict:
    return {"errors": [{"code": harbor_code(status, code), "message": message}]}


def harbor_exception_handler(exc, context):
    info = describe(exc, context)
    return Response(
        harbor_error_body(info.status, info.message, info.code),
        status=info.status,
        headers=info.headers,
    )
