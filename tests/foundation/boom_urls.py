"""The real URLs plus one failing GET view per service, to see 405 and 500 in each format."""

from django.urls import include, path
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from codehost.api.base import GiteaViewMixin
from registry.api.base import HarborViewMixin
from storefront.api.base import TiendanubeViewMixin


def boom_view(mixin):
    class Boom(mixin, APIView):
        # Open to anonymous callers, so that the failure itself is what answers.
        authentication_classes = []
        permission_classes = [AllowAny]

        def get(self, request, **kwargs):
            raise RuntimeError("secret internals of the failure")

    return Boom.as_view()


urlpatterns = [
    path("api/v2.0/boom", boom_view(HarborViewMixin)),
    path("api/v1/boom", boom_view(GiteaViewMixin)),
    path("v1/<int:store_id>/boom", boom_view(TiendanubeViewMixin)),
    path("", include("config.urls")),
]
