"""Domain errors of the code hosting service: a code and a message, nothing about HTTP.

Services raise them; codehost.api.exceptions alone turns each code into Gitea's status and
error body. A failed migration keeps its error's code on the record, so `from_code` builds
the same error again when the waiting request reads it.
"""


class DomainError(Exception):
    code = "internal"
    default_message = ""

    def __init__(self, message: str | None = None):
        self.message = self.default_message if message is None else str(message)
        super().__init__(self.message)


class Rejected(DomainError):
    """A request refused as it stands (a missing password, a user already blocked...)."""

    code = "rejected"


class Invalid(DomainError):
    """Input breaking a rule: a name, a value out of range, a unit setting."""

    code = "invalid"


class Forbidden(DomainError):
    code = "forbidden"
    default_message = "forbidden"


class AccountRefused(DomainError):
    """The caller's account may not act at all: a password to change first, a sudo refused."""

    code = "account_refused"


class NotFound(DomainError):
    code = "not_found"
    default_message = "not found"


class Conflict(DomainError):
    code = "conflict"


class Archived(DomainError):
    """The repository is archived: read-only until unarchived."""

    code = "archived"


class InternalError(DomainError):
    """A failure of ours, whose message only site admins may read."""

    code = "internal"


class Busy(DomainError):
    """Too much work in flight; the caller may come back after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class CallerBusy(Busy):
    """The caller's own share of the work in flight is used up."""

    code = "caller_busy"


class ServerBusy(Busy):
    """The server's share of the work in flight is used up."""

    code = "server_busy"


_BY_CODE = {
    cls.code: cls
    for cls in (Rejected, Invalid, Forbidden, NotFound, Conflict, Archived, InternalError)
}


def from_code(code: str, message: str) -> DomainError:
    """The error a stored code stands for (an unknown or empty code is ours: internal)."""
    return _BY_CODE.get(code, InternalError)(message)


REPO_EXISTS = "The repository with the same name already exists."
# A directory on disk where a new repository would go (not ours to remove).
FILES_EXIST = "Files already exist for this repository. Adopt them or delete them."
