"""Suspension of a store (plan not renewed) or of one app in a store (charge unpaid).

An app is cut off while its store or its installation is suspended: API calls answer 402,
its scripts leave the store pages and its webhooks are not called. The app hears of each
change of that combined state through `app/suspended` and `app/resumed`, which are sent
even though the app is suspended (tiendanube.md section 14: they tell the app to resync).
"""

from django.db import transaction
from django.utils import timezone

from storefront.errors import NotInstalled
from storefront.models import Installation, Store
from storefront.services import events


def _cut_off(store: Store, installation: Installation) -> bool:
    return bool(store.suspended_at or installation.suspended_at)


def _set(store_id: int, app_id: int | None, suspended: bool, reason: str) -> list[int]:
    """Apply the change; the ids of the apps whose access changed (each told by webhook)."""
    now = timezone.now() if suspended else None
    with transaction.atomic():
        # FOR NO KEY UPDATE: only flags change, so foreign key checks of rows written
        # meanwhile (an uninstall's app/uninstalled delivery names the store) are not held
        # up; with FOR UPDATE each waited on the other, a deadlock (PostgreSQL).
        store = Store.objects.select_for_update(no_key=True).get(pk=store_id)
        installations = list(
            Installation.objects.select_for_update(no_key=True).filter(store=store).order_by("id")
        )
        if app_id is not None:
            installations = [item for item in installations if item.app_id == app_id]
            if not installations:
                raise NotInstalled(f"app {app_id} is not installed in store {store_id}")
        before = {item.app_id: _cut_off(store, item) for item in installations}
        if app_id is None:
            if bool(store.suspended_at) == suspended:
                return []
            store.suspended_at = now
            store.suspension_reason = reason if suspended else ""
            store.save(update_fields=["suspended_at", "suspension_reason", "updated_at"])
        else:
            installation = installations[0]
            if bool(installation.suspended_at) == suspended:
                return []
            installation.suspended_at = now
            installation.suspension_reason = reason if suspended else ""
            installation.save(update_fields=["suspended_at", "suspension_reason", "updated_at"])
        changed = [
            item.app_id for item in installations if _cut_off(store, item) != before[item.app_id]
        ]
        event = "app/suspended" if suspended else "app/resumed"
        for changed_app_id in changed:
            events.fan_out(store.pk, event, changed_app_id, only_app_id=changed_app_id)
    return changed


def suspend(store_id: int, app_id: int | None = None, reason: str = "") -> list[int]:
    """Suspend the store (every app) or one app's installation in it."""
    return _set(store_id, app_id, True, reason)


def resume(store_id: int, app_id: int | None = None) -> list[int]:
    """Lift the store's (or one installation's) suspension."""
    return _set(store_id, app_id, False, "")
