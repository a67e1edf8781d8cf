"""One OpenAPI schema and Swagger UI per service, under /api/docs/<service>/."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

SERVICES = {
    "registry": ("Registry API (Harbor v2.0 compatible)", "2.0", "/api/v2.0/"),
    "codehost": ("Code hosting API (Gitea v1 compatible)", "1.26.3", "/api/v1/"),
    "storefront": ("Store API (Tiendanube v1 compatible)", "1", "/v1/"),
}


def _under(endpoints, prefix):
    return [endpoint for endpoint in endpoints if endpoint[0].startswith(prefix)]


# drf-spectacular takes hooks as import paths.
def registry_endpoints(endpoints, **kwargs):
    return _under(endpoints, SERVICES["registry"][2])


def codehost_endpoints(endpoints, **kwargs):
    return _under(endpoints, SERVICES["codehost"][2])


def storefront_endpoints(endpoints, **kwargs):
    return _under(endpoints, SERVICES["storefront"][2])


def docs_urls():
    patterns = []
    for name, (title, version, _prefix) in SERVICES.items():
        schema_view = SpectacularAPIView.as_view(
            custom_settings={
                "TITLE": title,
                "VERSION": version,
                "PREPROCESSING_HOOKS": [f"config.docs.{name}_endpoints"],
            }
        )
        patterns += [
            path(f"{name}/schema/", schema_view, name=f"{name}-schema"),
            path(
                f"{name}/",
                SpectacularSwaggerView.as_view(url_name=f"{name}-schema"),
                name=f"{name}-docs",
            ),
        ]
    return patterns
