"""Domain errors of the registry: a Harbor error code and a message, nothing of HTTP.

Services raise them; `registry/api/exceptions.py` alone turns a code into Harbor's status
and error body. The codes are Harbor's own (its `lib/errors` package names them the same).
"""


class RegistryError(Exception):
    code = "UNKNOWN"
    message = "internal server error"

    def __init__(self, message: str | None = None):
        self.message = message or type(self).message
        super().__init__(self.message)


class BadRequest(RegistryError):
    code, message = "BAD_REQUEST", "bad request"


class Unauthorized(RegistryError):
    code, message = "UNAUTHORIZED", "unauthorized"


class Forbidden(RegistryError):
    code, message = "FORBIDDEN", "forbidden"


class NotFound(RegistryError):
    code, message = "NOT_FOUND", "not found"


class MethodNotAllowed(RegistryError):
    """An operation Harbor refuses on this kind of resource (a proxy cache project)."""

    code, message = "METHOD_NOT_ALLOWED", "method not allowed"


class Conflict(RegistryError):
    code, message = "CONFLICT", "conflict"


class PreconditionFailed(RegistryError):
    code, message = "PRECONDITION", "precondition failed"


class QuotaExceeded(PreconditionFailed):
    """A push that would take a project over its storage limit."""


class UnprocessableEntity(RegistryError):
    code, message = "UNPROCESSABLE_ENTITY", "validation failure"


class ServiceUnavailable(RegistryError):
    """A system the registry depends on (the LDAP directory) cannot be reached."""

    code, message = "SERVICE_UNAVAILABLE", "service unavailable"
