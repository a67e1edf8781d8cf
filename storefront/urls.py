from django.urls import path

from storefront import owner_views, views

urlpatterns = [
    path("<int:app_id>/authorize", views.authorize, name="storefront-authorize"),
    path("authorize/token", views.TokenView.as_view(), name="storefront-token"),
    path("installed", owner_views.installed_apps, name="storefront-installed-apps"),
]
