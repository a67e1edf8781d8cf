"""The distribution error format, expressed once: {"errors":[{"code","message","detail"}]}.

Views and services raise `DistributionError` subclasses; `error_response` renders them.
Codes and statuses are those of the OCI Distribution Specification v1.1 (and of the CNCF
Distribution registry where the specification leaves the status open).
"""

import json

from django.http import HttpResponse


class DistributionError(Exception):
    status = 500
    code = "UNKNOWN"
    message = "unknown error"

    def __init__(self, message: str | None = None, detail=None, headers: dict | None = None):
        super().__init__(message or self.message)
        self.message = message or self.message
        self.detail = detail
        self.headers = headers or {}


class BlobUnknown(DistributionError):
    status, code, message = 404, "BLOB_UNKNOWN", "blob unknown to registry"


class BlobUploadInvalid(DistributionError):
    status, code, message = 400, "BLOB_UPLOAD_INVALID", "blob upload invalid"


class RangeInvalid(BlobUploadInvalid):
    """A chunk that does not continue the upload where it stands."""

    status = 416


class BlobUploadUnknown(DistributionError):
    status, code, message = 404, "BLOB_UPLOAD_UNKNOWN", "blob upload unknown to registry"


class DigestInvalid(DistributionError):
    status, code, message = 400, "DIGEST_INVALID", "provided digest did not match uploaded content"


class ManifestBlobUnknown(DistributionError):
    status, code, message = 400, "MANIFEST_BLOB_UNKNOWN", "blob unknown to registry"


class ManifestInvalid(DistributionError):
    status, code, message = 400, "MANIFEST_INVALID", "manifest invalid"


class ManifestUnknown(DistributionError):
    status, code, message = 404, "MANIFEST_UNKNOWN", "manifest unknown"


class NameInvalid(DistributionError):
    status, code, message = 400, "NAME_INVALID", "invalid repository name"


class NameUnknown(DistributionError):
    status, code, message = 404, "NAME_UNKNOWN", "repository name not known to registry"


class SizeInvalid(DistributionError):
    status, code, message = 400, "SIZE_INVALID", "provided length did not match content length"


class TooLarge(SizeInvalid):
    status = 413


class Unauthorized(DistributionError):
    status, code, message = 401, "UNAUTHORIZED", "authentication required"


class Denied(DistributionError):
    status, code, message = 403, "DENIED", "requested access to the resource is denied"


class Unsupported(DistributionError):
    status, code, message = 405, "UNSUPPORTED", "The operation is unsupported."


class PaginationNumberInvalid(DistributionError):
    """A bad `n` on a list (the CNCF registry's code)."""

    status, code, message = 400, "PAGINATION_NUMBER_INVALID", "invalid number of results requested"


class TooManyRequests(DistributionError):
    """Too many failed sign-ins from this client (Distribution's TOOMANYREQUESTS)."""

    status, code, message = 429, "TOOMANYREQUESTS", "too many requests"


class BadRequest(DistributionError):
    """A request refused as a whole (a Host not allowed, too many query parameters): the
    specification has no code for it, UNSUPPORTED is its nearest."""

    status, code, message = 400, "UNSUPPORTED", "bad request"


class TooManyParameters(BadRequest):
    """More query parameters than Django reads (DATA_UPLOAD_MAX_NUMBER_FIELDS)."""

    message = "too many parameters"


class RouteUnknown(DistributionError):
    """A path that is no route of the API (as Harbor words it)."""

    status, code, message = 404, "NOT_FOUND", "not found"


def error_response(error: DistributionError) -> HttpResponse:
    body = {"errors": [{"code": error.code, "message": error.message, "detail": error.detail}]}
    response = HttpResponse(
        json.dumps(body) + "\n", status=error.status, content_type="application/json"
    )
    for name, value in error.headers.items():
        response[name] = value
    return response


def error_page(status: int) -> HttpResponse:
    """Django's own 400 or 500 under /v2/ and /service/token (config/error_pages.py)."""
    return error_response(BadRequest() if status == 400 else DistributionError())
