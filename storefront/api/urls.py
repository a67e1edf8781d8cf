from django.urls import re_path

from storefront.api.base import TiendanubeUnknownPathView

urlpatterns = [
    re_path(r"^.*$", TiendanubeUnknownPathView.as_view()),
]
