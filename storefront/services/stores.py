"""Stores, as an operator creates them for an existing account, and what a store holds
back when its owner's account is to be deleted."""

from config.account_deletion import Holding
from storefront.errors import Invalid
from storefront.models import Store


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
