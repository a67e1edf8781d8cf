from django.contrib import admin
from django.urls import include, path

from config.docs import docs_urls

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/docs/", include(docs_urls())),
    path("api/v2.0/", include("registry.api.urls")),
    path("api/v1/", include("codehost.api.urls")),
    path("v1/<int:store_id>/", include("storefront.api.urls")),
    path("apps/", include("storefront.urls")),
    path("stores/", include("storefront.page_urls")),
]
