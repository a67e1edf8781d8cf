"""The URLconf of `/v2/` requests (settings.LEAN_ROUTES): the distribution routes alone."""

from django.urls import include, path

handler400 = "config.error_pages.bad_request"
handler500 = "config.error_pages.server_error"

urlpatterns = [path("v2/", include("registry.distribution.urls"))]
