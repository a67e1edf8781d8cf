"""Domain errors of the store API that the catalogue rules raise.

A DRF APIException, like the registry's and the code host's, so the Tiendanube exception
handler renders it as 422 `{"code", "message", "description"}`; it lives outside `api/`
because the business rules raise it and nothing below `api/` imports `api/`.
"""

from rest_framework.exceptions import APIException


class Unprocessable(APIException):
    """A business rule refused the request (422 in the {code, message, description} form)."""

    status_code = 422
    default_detail = "Unprocessable Entity"
