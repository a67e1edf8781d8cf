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

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.auth import hash_token
from config.kept import KeptInstances, arg
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
        # Locked as `uninstall` locks it: an uninstall meanwhile waits and takes the new
        # code along (read unlocked, the code's foreign key failed at commit: a 500).
        mine = Installation.objects.select_for_update().filter(store=store, app=app)
        installation, created = mine.first(), False
        if installation is None:
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
    The installation is locked first, as `uninstall` does: an uninstall meanwhile waits
    for the exchange, or has removed the code (deadlock otherwise: the uninstall held the
    installation and waited on the code, the new token's foreign key on the installation).
    """
    now = timezone.now()
    with transaction.atomic():
        grant = (
            AuthorizationCode.objects.select_related("installation__store", "installation__app")
            .filter(code_hash=hash_token(code), installation__app=app)
            .first()
        )
        if grant is not None:
            locked = Installation.objects.select_for_update().filter(pk=grant.installation_id)
            grant = grant if locked.first() is not None else None
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
    return _BY_TOKEN.first(digest=hash_token(token))


# Every store API request runs the lookup: kept (see config.kept), the queryset, its
# compiling and select_related's machinery cost more than the query.
_BY_TOKEN = KeptInstances(
    AccessToken,
    ("installation", "installation__store", "installation__app", "installation__store__owner"),
    lambda tokens: tokens.filter(token_hash=arg("digest")),
    answer="installation",
    prepared=True,
)


def uninstall(store_id: int, app_id: int) -> None:
    with transaction.atomic():
        installation = (
            Installation.objects.select_for_update()
            .filter(store_id=store_id, app_id=app_id)
            .first()
        )
        if installation is None:
            raise NotInstalled(f"app {app_id} is not installed in store {store_id}")
        remove(installation)


def remove(installation: Installation) -> None:
    """Uninstall a row-locked installation, inside the caller's transaction."""
    store_id, app_id = installation.store_id, installation.app_id
    # Before the webhooks go with the installation; sent once this commits.
    events.fan_out(store_id, "app/uninstalled", app_id, only_app_id=app_id)
    Script.objects.filter(store_id=store_id, app_id=app_id).delete()
    installation.delete()
