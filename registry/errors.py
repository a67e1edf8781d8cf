"""Domain errors of the registry, raised by services and views with Harbor's status and text.

They are DRF APIExceptions, so the Harbor exception handler renders them as
{"errors":[{"code": ..., "message": ...}]} with the code of their status.
"""

from rest_framework.exceptions import APIException


class RegistryError(APIException):
    status_code = 500
    default_detail = "internal server error"

    def __init__(self, message: str | None = None):
        super().__init__(message or self.default_detail)


class BadRequest(RegistryError):
    status_code = 400
    default_detail = "bad request"


class Unauthorized(RegistryError):
    status_code = 401
    default_detail = "unauthorized"


class Forbidden(RegistryError):
    status_code = 403
    default_detail = "forbidden"


class NotFound(RegistryError):
    status_code = 404
    default_detail = "not found"


class Conflict(RegistryError):
    status_code = 409
    default_detail = "conflict"


class PreconditionFailed(RegistryError):
    status_code = 412
    default_detail = "precondition failed"


class QuotaExceeded(PreconditionFailed):
    """A push that would take a project over its storage limit."""


class UnprocessableEntity(RegistryError):
    status_code = 422
    default_detail = "validation failure"
