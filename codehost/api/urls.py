from django.urls import re_path

from codehost.api.base import GiteaUnknownPathView

urlpatterns = [
    re_path(r"^.*$", GiteaUnknownPathView.as_view()),
]
