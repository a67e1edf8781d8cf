"""The URLconf of `/v2/` requests (settings.LEAN_ROUTES): the distribution routes alone."""

from django.urls import include, path

urlpatterns = [path("v2/", include("registry.distribution.urls"))]
