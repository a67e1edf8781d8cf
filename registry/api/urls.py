from django.urls import path, re_path

from registry.api import views
from registry.api.base import HarborUnknownPathView

urlpatterns = [
    path("health", views.HealthView.as_view()),
    re_path(r"^.*$", HarborUnknownPathView.as_view()),
]
