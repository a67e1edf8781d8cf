from django.urls import include, path, re_path

from registry.api import views
from registry.api.base import HarborUnknownPathView

urlpatterns = [
    path("health", views.HealthView.as_view()),
    path("", include("registry.api.ldap_urls")),
    re_path(r"^.*$", HarborUnknownPathView.as_view()),
]
