"""Uninstalling an app from a store, as its owner does from the list of installed apps.

The app hears `app/uninstalled` (`id` is the app's id, as Tiendanube sends it), unless the
store or the app's access is suspended at that moment: no webhook is called then. Its
access token, webhooks and storefront scripts go with the installation; deliveries of other
events still waiting for it are dropped when their turn comes (their record stays).
"""

from django.db import transaction

from storefront import webhooks
from storefront.models import Installation, Script
from storefront.suspension import NotInstalled


def uninstall(store_id: int, app_id: int) -> None:
    with transaction.atomic():
        installation = (
            Installation.objects.select_for_update()
            .filter(store_id=store_id, app_id=app_id)
            .first()
        )
        if installation is None:
            raise NotInstalled(f"app {app_id} is not installed in store {store_id}")
        # Before the webhooks go with the installation; sent once this commits.
        webhooks.fan_out(store_id, "app/uninstalled", app_id, only_app_id=app_id)
        Script.objects.filter(store_id=store_id, app_id=app_id).delete()
        installation.delete()
