from django.urls import path, re_path

from storefront.api import webhook_views
from storefront.api.base import TiendanubeUnknownPathView
from storefront.api.views import categories, common, images, products, scripts, variants

urlpatterns = [
    path("store", common.StoreView.as_view()),
    path("products", products.ProductListView.as_view()),
    path("products/sku/<str:sku>", products.ProductBySkuView.as_view()),
    path("products/stock-price", products.StockPriceView.as_view()),
    path("products/<int:product_id>", products.ProductDetailView.as_view()),
    path("products/<int:product_id>/variants", variants.VariantListView.as_view()),
    path("products/<int:product_id>/variants/stock", variants.VariantStockView.as_view()),
    path(
        "products/<int:product_id>/variants/<int:variant_id>", variants.VariantDetailView.as_view()
    ),
    path("products/<int:product_id>/images", images.ImageListView.as_view()),
    path("products/<int:product_id>/images/<int:image_id>", images.ImageDetailView.as_view()),
    path("categories", categories.CategoryListView.as_view()),
    path("categories/<int:category_id>", categories.CategoryDetailView.as_view()),
    path("scripts", scripts.ScriptListView.as_view()),
    path("scripts/<int:script_id>", scripts.ScriptDetailView.as_view()),
    path("webhooks", webhook_views.WebhookListView.as_view()),
    path("webhooks/<int:webhook_id>", webhook_views.WebhookDetailView.as_view()),
    re_path(r"^.*$", TiendanubeUnknownPathView.as_view()),
]
