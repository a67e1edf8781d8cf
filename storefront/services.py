"""Stores, partner apps and the OAuth 2 install flow (authorization code grant only).

Tiendanube issues tokens that never expire; a new exchange for the same store and app
replaces the previous token. Codes and tokens are kept as sha256 digests only.
"""

import secrets
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils import timezone

from config.account_deletion import Holding
from config.auth import hash_token
from storefront.models import SCOPES, AccessToken, App, AuthorizationCode, Installation, Store


class InvalidStore(ValueError):
    pass


class InvalidApp(ValueError):
    pass


class InvalidGrant(ValueError):
    """The code is unknown, used, expired or was issued to another app."""


def create_store(
    *, owner, name: str, languages: list[str], main_language: str, currency: str, country: str
) -> Store:
    if not languages:
        raise InvalidStore("a store needs at least one language")
    if any(not code.isalpha() or len(code) > 8 for code in languages):
        raise InvalidStore("language codes are letters only, e.g. es,pt")
    if main_language not in languages:
        raise InvalidStore(f"main language {main_language!r} is not among {languages}")
    return Store.objects.create(
        owner=owner,
        name={code: name for code in languages},
        description={code: "" for code in languages},
        languages=languages,
        main_language=main_language,
        currency=currency.upper()[:3],
        country=country.upper()[:2],
    )


def create_app(
    *, name: str, redirect_uri: str, scopes: list[str], recurring_price: str | None = None
) -> App:
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise InvalidApp(f"unknown scopes: {', '.join(unknown)}; known: {', '.join(SCOPES)}")
    try:
        URLValidator(schemes=["http", "https"])(redirect_uri)
    except ValidationError as error:
        raise InvalidApp(f"redirect URI {redirect_uri!r} is not an http(s) URL") from error
    price = None
    if recurring_price not in (None, ""):
        try:
            price = Decimal(recurring_price)
        except InvalidOperation as error:
            raise InvalidApp(f"recurring price {recurring_price!r} is not a number") from error
    return App.objects.create(
        name=name,
        client_secret=secrets.token_hex(24),
        redirect_uri=redirect_uri,
        scopes=",".join(dict.fromkeys(scopes)),
        recurring_price=price,
    )


def needs_consent(app: App, store: Store) -> bool:
    """True unless the store already granted every scope the app asks for."""
    installation = Installation.objects.filter(store=store, app=app).first()
    if installation is None:
        return True
    asked = {scope for scope in app.scopes.split(",") if scope}
    return not asked <= installation.scope_set


def authorize(app: App, store: Store) -> str:
    """Install (or re-grant) the app in the store; a fresh authorization code to hand over."""
    code = secrets.token_hex(20)
    with transaction.atomic():
        installation, created = Installation.objects.get_or_create(
            store=store, app=app, defaults={"scopes": app.scopes}
        )
        if not created and installation.scopes != app.scopes:
            installation.scopes = app.scopes
            installation.save(update_fields=["scopes", "updated_at"])
        AuthorizationCode.objects.create(
            installation=installation,
            code_hash=hash_token(code),
            expires_at=timezone.now() + timedelta(seconds=settings.STOREFRONT_OAUTH_CODE_SECONDS),
        )
    return code


def exchange_code(app: App, code: str) -> tuple[str, Installation]:
    """Trade a code for the installation's access token (replacing any previous one).

    The code is spent by one conditional UPDATE, so two racing exchanges get one token.
    """
    now = timezone.now()
    with transaction.atomic():
        grant = (
            AuthorizationCode.objects.select_related("installation__store", "installation__app")
            .filter(code_hash=hash_token(code), installation__app=app)
            .first()
        )
        if grant is None or grant.used_at is not None:
            raise InvalidGrant("The authorization code is invalid")
        if grant.expires_at <= now:
            raise InvalidGrant("The authorization code has expired")
        spent = AuthorizationCode.objects.filter(pk=grant.pk, used_at__isnull=True).update(
            used_at=now
        )
        if not spent:
            raise InvalidGrant("The authorization code is invalid")
        token = secrets.token_hex(20)
        AccessToken.objects.update_or_create(
            installation=grant.installation, defaults={"token_hash": hash_token(token)}
        )
    return token, grant.installation


def installation_for_token(token: str) -> Installation | None:
    found = _token_lookup().filter(token_hash=hash_token(token))[:1]
    return found[0].installation if found else None


@cache
def _token_lookup():
    """Every store API request runs this lookup: the joined queryset is built once per
    process and only filtered per request. The hash is unique, so no ordering is needed."""
    return AccessToken.objects.select_related("installation__store__owner", "installation__app")


def account_holdings(user) -> list:
    """Stores keep an account from being deleted: they hold orders, uploads and installed
    apps' data that are not to vanish with a user (config.account_deletion)."""
    count = Store.objects.filter(owner=user).count()
    if not count:
        return []
    return [Holding("storefront", f"user still owns stores [count: {count}]")]
