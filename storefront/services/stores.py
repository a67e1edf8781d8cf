"""Stores, as an operator creates (and deletes) them for an existing account, and what a
store holds back when its owner's account is to be deleted."""

from django.db import transaction

from config.account_deletion import Holding
from storefront.errors import Invalid, Missing
from storefront.models import Installation, Store
from storefront.services import installations


def create_store(
    *, owner, name: str, languages: list[str], main_language: str, currency: str, country: str
) -> Store:
    if not languages:
        raise Invalid("a store needs at least one language")
    if any(not code.isalpha() or len(code) > 8 for code in languages):
        raise Invalid("language codes are letters only, e.g. es,pt")
    if main_language not in languages:
        raise Invalid(f"main language {main_language!r} is not among {languages}")
    return Store.objects.create(
        owner=owner,
        name={code: name for code in languages},
        description={code: "" for code in languages},
        languages=languages,
        main_language=main_language,
        currency=currency.upper()[:3],
        country=country.upper()[:2],
    )


def account_holdings(user) -> list:
    """Stores keep an account from being deleted: they hold orders, uploads and installed
    apps' data that are not to vanish with a user (config.account_deletion)."""
    count = Store.objects.filter(owner=user).count()
    if not count:
        return []
    return [Holding("storefront", f"user still owns stores [count: {count}]")]


def delete_store(store_id: int) -> None:
    """Every app installed in the store is uninstalled first, as the owner would do it: each
    hears app/uninstalled (those deliveries outlive the store), then the store goes with
    all it holds."""
    with transaction.atomic():
        # Store first, FOR NO KEY UPDATE as a suspension takes it (which then waits), and
        # an uninstall committing meanwhile still passes its foreign key checks.
        store = Store.objects.select_for_update(no_key=True).filter(pk=store_id).first()
        if store is None:
            raise Missing(f"store {store_id} does not exist")
        installed = Installation.objects.select_for_update().filter(store=store).order_by("id")
        for installation in installed:
            installations.remove(installation)
        store.delete()
