from django.contrib import admin
from django.urls import include, path

from config.docs import docs_urls
from registry.distribution.views import TokenView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/docs/", include(docs_urls())),
    path("api/v2.0/", include("registry.api.urls")),
    path("v2/", include("registry.distribution.urls")),
    path("service/token", TokenView.as_view()),
    path("api/v1/", include("codehost.api.urls")),
    path("v1/<int:store_id>/", include("storefront.api.urls")),
    # git smart HTTP: /{owner}/{repo}.git/...
    path("", include("codehost.git_urls")),
]
