from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Registry (Harbor v2.0)"
    # This app's section of the admin dashboard (config/dashboard.py).
    dashboard = "registry.dashboard.section"
    # Django's own 400 and 500 answers under these paths (config/error_pages.py).
    error_pages = {
        "/api/v2.0/": "registry.api.exceptions.error_page",
        "/v2/": "registry.distribution.errors.error_page",
        "/service/token": "registry.distribution.errors.error_page",
    }
