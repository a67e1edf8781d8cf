"""Tiendanube v1 wire conventions, set once for every store API view."""

from rest_framework.permissions import AllowAny

from config.views import ServiceViewMixin, UnknownPathView
from storefront.api.exceptions import tiendanube_exception_handler
from storefront.api.pagination import TiendanubePagination


class TiendanubeViewMixin(ServiceViewMixin):
    authentication_classes = []
    permission_classes = [AllowAny]
    pagination_class = TiendanubePagination
    exception_handler = staticmethod(tiendanube_exception_handler)


class TiendanubeUnknownPathView(TiendanubeViewMixin, UnknownPathView):
    not_found_message = "Not Found"
