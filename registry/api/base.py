"""Harbor v2.0 wire conventions, set once for every registry API view."""

from rest_framework.permissions import AllowAny

from config.views import ServiceViewMixin, UnknownPathView
from registry.api.authentication import HarborBasicAuthentication, HarborSessionAuthentication
from registry.api.exceptions import harbor_exception_handler
from registry.api.pagination import HarborPagination


class HarborViewMixin(ServiceViewMixin):
    authentication_classes = [HarborBasicAuthentication, HarborSessionAuthentication]
    permission_classes = [AllowAny]
    pagination_class = HarborPagination
    exception_handler = staticmethod(harbor_exception_handler)


class HarborUnknownPathView(HarborViewMixin, UnknownPathView):
    not_found_message = "path {path} was not found"
