"""Domain errors of the code hosting service, with Gitea's statuses.

They are DRF APIExceptions so that services can raise them and the Gitea exception
handler renders `{"message", "url"}` without a mapping table.
"""

from rest_framework import status
from rest_framework.exceptions import APIException


class CodehostError(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "bad request"


class BadRequest(CodehostError):
    status_code = status.HTTP_400_BAD_REQUEST


class Forbidden(CodehostError):
    status_code = status.HTTP_403_FORBIDDEN
    default_detail = "forbidden"


class BareForbidden(CodehostError):
    """A 403 Gitea answers with {"message"} only (refused sudo, account states)."""

    status_code = status.HTTP_403_FORBIDDEN


class NotFound(CodehostError):
    status_code = status.HTTP_404_NOT_FOUND
    default_detail = "not found"


class Conflict(CodehostError):
    status_code = status.HTTP_409_CONFLICT


class Unprocessable(CodehostError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY


class InternalError(CodehostError):
    """A failure Gitea reports as 500 (its message is only shown to site admins)."""

    status_code = status.HTTP_500_INTERNAL_SERVER_ERROR


REPO_EXISTS = "The repository with the same name already exists."
# A directory on disk where a new repository would go (not ours to remove).
FILES_EXIST = "Files already exist for this repository. Adopt them or delete them."
