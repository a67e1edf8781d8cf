from django.apps import AppConfig


class StorefrontConfig(AppConfig):
    name = "storefront"
    verbose_name = "Storefront (Tiendanube v1)"
    # This app's section of the admin dashboard (config/dashboard.py).
    dashboard = "storefront.dashboard.section"
    # Django's own 400 and 500 answers under this path (config/error_pages.py).
    error_pages = {"/v1/": "storefront.api.exceptions.error_page"}

    def ready(self):
        from config import account_deletion
        from storefront import tasks  # noqa: F401 - connects the receiver that queues deliveries
        from storefront.services.stores import account_holdings

        account_deletion.register("storefront", holdings=account_holdings)
