"""Partner apps, registered by an operator. An app's id is its OAuth client_id; the client
secret is kept readable because webhooks are signed with it."""

import secrets
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from storefront.errors import Invalid
from storefront.models import SCOPES, App, Delivery, Installation


def create_app(
    *, name: str, redirect_uri: str, scopes: list[str], recurring_price: str | None = None
) -> App:
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise Invalid(f"unknown scopes: {', '.join(unknown)}; known: {', '.join(SCOPES)}")
    try:
        URLValidator(schemes=["http", "https"])(redirect_uri)
    except ValidationError as error:
        raise Invalid(f"redirect URI {redirect_uri!r} is not an http(s) URL") from error
    price = None
    if recurring_price not in (None, ""):
        try:
            price = Decimal(recurring_price)
        except InvalidOperation as error:
            raise Invalid(f"recurring price {recurring_price!r} is not a number") from error
    return App.objects.create(
        name=name,
        client_secret=secrets.token_hex(24),
        redirect_uri=redirect_uri,
        scopes=",".join(dict.fromkeys(scopes)),
        recurring_price=price,
    )


def deletion_blockers(app: App) -> list[str]:
    """What keeps an app from being deleted. Its webhooks are signed with its secret, so
    once it is gone it can hear nothing: it is first uninstalled from every store (each
    store's uninstall tells it, app/uninstalled) and its pending deliveries are finished."""
    stores = Installation.objects.filter(app=app).values_list("store_id", flat=True)
    pending = Delivery.objects.filter(app=app, status=Delivery.PENDING).count()
    blockers = [f"installed in store {store_id}: uninstall it there first" for store_id in stores]
    if pending:
        blockers.append(f"{pending} webhook delivery(ies) to it still pending")
    return blockers


def delete_app(app_id: int) -> None:
    with transaction.atomic():
        app = App.objects.select_for_update().filter(pk=app_id).first()
        if app is None:
            return
        if blockers := deletion_blockers(app):
            raise Invalid(f"app {app_id} cannot be deleted: {'; '.join(blockers)}")
        app.delete()
