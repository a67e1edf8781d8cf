"""Scripts an app adds to its store's pages (each app sees and changes only its own)."""

from django.db import transaction

from storefront.errors import NotInstalled
from storefront.models import App, Installation, Script, Store
from storefront.services.locks import locked


def create_script(store: Store, app: App, data: dict) -> Script:
    with transaction.atomic():
        # Uninstalling locks the installation and deletes its scripts: a script created
        # while that commits would outlive the app (and show up again on a reinstall).
        if Installation.objects.select_for_update().filter(store=store, app=app).first() is None:
            raise NotInstalled(f"app {app.pk} is not installed in store {store.pk}")
        return Script.objects.create(
            store=store,
            app=app,
            src=data["src"],
            event=data["event"],
            where=data.get("where", "store"),
        )


def update_script(script: Script, data: dict) -> Script:
    with transaction.atomic():
        script = locked(Script.objects, script.pk, "Script")
        for field in ("src", "event", "where"):
            if field in data:
                setattr(script, field, data[field])
        script.save()
    return script


def delete_script(script: Script) -> None:
    with transaction.atomic():
        locked(Script.objects, script.pk, "Script").delete()
