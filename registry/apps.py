from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Registry (Harbor v2.0)"
    # This app's section of the admin dashboard (config/dashboard.py).
    dashboard = "registry.dashboard.section"
