"""Installations of apps in stores: the OAuth 2 install flow (authorization code grant
only), the tokens apps call the API with, and uninstalling.

Tiendanube issues tokens that never expire; a new exchange for the same store and app
replaces the previous token. Codes and tokens are kept as sha256 digests only.

Uninstalling: the app hears `app/uninstalled` (`id` is the app's id, as Tiendanube sends
it), unless the store or the app's access is suspended at that moment: no webhook is called
then. Its access token, webhooks and storefront scripts go with the installation;
deliveries of other events still waiting for it are dropped when their turn comes (their
record stays).
"""

import secrets
from datetime import timedelta
from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from config.auth import hash_token
from storefront import prepared
from storefront.errors import InvalidGrant, NotInstalled
from storefront.models import AccessToken, App, AuthorizationCode, Installation, Script, Store
from storefront.services import events


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
    """The installation holding `token`, its store (and the store's owner) and app
    attached: one indexed query on the token's hash. Never cached, so that a revoked
    token or a suspension acts on the very next request."""
    lookup = _token_lookup(connection.alias)
    with prepared.cursor(connection=connection) as cursor:
        cursor.execute(lookup.sql, [hash_token(token)])
        found = cursor.fetchone()
    return None if found is None else lookup.installation(found)


# Every store API request runs the lookup: its SQL and converters are built once per
# process, and each model is made by `from_db` from its slice of the row; the queryset,
# its compiling and select_related's machinery cost more than the query.
_JOINED = {"installation": Installation, "installation__store": Store, "installation__app": App}
_OWNER = get_user_model()


class _TokenLookup:
    def __init__(self, alias: str):
        paths = {**_JOINED, "installation__store__owner": _OWNER}
        self.slices = []
        names = []
        for path, model in paths.items():
            attnames = [field.attname for field in model._meta.concrete_fields]
            self.slices.append((model, attnames, slice(len(names), len(names) + len(attnames))))
            names += [f"{path}__{attname}" for attname in attnames]
        queryset = AccessToken.objects.using(alias).filter(token_hash="").values(*names)
        compiler = queryset.query.get_compiler(alias)
        # Its one parameter is the hash, given per lookup.
        self.sql = compiler.as_sql()[0]
        columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
        self.converters = compiler.get_converters(columns)
        self.compiler = compiler
        self.alias = alias

    def installation(self, found: tuple) -> Installation:
        (values,) = self.compiler.apply_converters([list(found)], self.converters)
        installation, store, app, owner = (
            model.from_db(self.alias, attnames, values[where])
            for model, attnames, where in self.slices
        )
        Store.owner.field.set_cached_value(store, owner)
        Installation.store.field.set_cached_value(installation, store)
        Installation.app.field.set_cached_value(installation, app)
        return installation


@cache
def _token_lookup(alias: str) -> _TokenLookup:
    return _TokenLookup(alias)


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
        events.fan_out(store_id, "app/uninstalled", app_id, only_app_id=app_id)
        Script.objects.filter(store_id=store_id, app_id=app_id).delete()
        installation.delete()
