"""Store front pages under /stores/<store_id>/ (ids or handles for categories and products)."""

from django.urls import path

from storefront import pages

urlpatterns = [
    path("<int:store_id>/", pages.home, name="store-home"),
    path("<int:store_id>/categories/<str:key>/", pages.category, name="store-category"),
    path("<int:store_id>/products/<str:key>/", pages.product, name="store-product"),
]
