from django.urls import path, re_path

from storefront.api import views, webhook_views
from storefront.api.base import TiendanubeUnknownPathView

urlpatterns = [
    path("store", views.StoreView.as_view()),
    path("products", views.ProductListView.as_view()),
    path("products/sku/<str:sku>", views.ProductBySkuView.as_view()),
    path("products/stock-price", views.StockPriceView.as_view()),
    path("products/<int:product_id>", views.ProductDetailView.as_view()),
    path("products/<int:product_id>/variants", views.VariantListView.as_view()),
    path("products/<int:product_id>/variants/stock", views.VariantStockView.as_view()),
    path("products/<int:product_id>/variants/<int:variant_id>", views.VariantDetailView.as_view()),
    path("products/<int:product_id>/images", views.ImageListView.as_view()),
    path("products/<int:product_id>/images/<int:image_id>", views.ImageDetailView.as_view()),
    path("categories", views.CategoryListView.as_view()),
    path("categories/<int:category_id>", views.CategoryDetailView.as_view()),
    path("scripts", views.ScriptListView.as_view()),
    path("scripts/<int:script_id>", views.ScriptDetailView.as_view()),
    path("webhooks", webhook_views.WebhookListView.as_view()),
    path("webhooks/<int:webhook_id>", webhook_views.WebhookDetailView.as_view()),
    re_path(r"^.*$", TiendanubeUnknownPathView.as_view()),
]
