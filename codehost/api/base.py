"""Gitea v1 wire conventions, set once for every code hosting API view."""

from rest_framework.permissions import AllowAny

from codehost.api.authentication import GiteaBasicAuthentication
from codehost.api.exceptions import gitea_exception_handler
from codehost.api.pagination import GiteaPagination
from config.views import ServiceViewMixin, UnknownPathView


class GiteaViewMixin(ServiceViewMixin):
    authentication_classes = [GiteaBasicAuthentication]
    permission_classes = [AllowAny]
    pagination_class = GiteaPagination
    exception_handler = staticmethod(gitea_exception_handler)


class GiteaUnknownPathView(GiteaViewMixin, UnknownPathView):
    authentication_classes = []
    not_found_message = "not found"
