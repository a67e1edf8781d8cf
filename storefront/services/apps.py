"""Partner apps, registered by an operator. An app's id is its OAuth client_id; the client
secret is kept readable because webhooks are signed with it."""

import secrets
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from storefront.errors import Invalid
from storefront.models import SCOPES, App


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
