"""Store front pages under /stores/<store_id>/ (ids or handles for categories and products)."""

from django.urls import path

from storefront import pages

app_name = "storefront"

urlpatterns = [
    path("<int:store_id>/", pages.home, name="home"),
    path("<int:store_id>/categories/<str:key>/", pages.category, name="category"),
    path("<int:store_id>/products/<str:key>/", pages.product, name="product"),
]
