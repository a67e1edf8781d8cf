"""Pieces every service's API views share."""

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView


class ServiceViewMixin:
    """Set `exception_handler` on a service's base view; DRF asks the view for it."""

    exception_handler = None

    def get_exception_handler(self):
        return self.exception_handler


@extend_schema(exclude=True)
class UnknownPathView(APIView):
    """Catch-all at the end of a service's URLs: 404 (or 405) in that service's error format."""

    authentication_classes = []
    permission_classes = [AllowAny]
    not_found_message = "path {path} was not found"

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise NotFound(self.not_found_message.format(path=request.path))
