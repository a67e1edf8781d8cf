"""Webhooks an app registers in a store: the rules of their url, event and scope."""

from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction

from config import outbound
from storefront.errors import AlreadyExists, Invalid, NotInstalled, ScopeMissing
from storefront.models import EVENTS, Installation, Webhook
from storefront.services.locks import locked

# Host names Tiendanube refuses as webhook targets, besides localhost.
REFUSED_DOMAINS = ("localhost", "tiendanube.com", "nuvemshop.com.br")
# The scope an app needs to subscribe to an event, by the event's resource.
EVENT_SCOPES = {
    "product": ("read_products", "write_products"),
    "category": ("read_products", "write_products"),
    "order": ("read_orders", "write_orders"),
}


def _host_refused(host: str) -> bool:
    """Refused names, and hosts resolving now to any local or private address (in any
    spelling: 127.1, 2130706433, 0x7f000001, ::ffff:127.0.0.1, 0.0.0.0). A name that does
    not resolve yet is accepted: every delivery checks the address again as resolved then."""
    host = host.lower().rstrip(".")
    if any(host == domain or host.endswith("." + domain) for domain in REFUSED_DOMAINS):
        return True
    if settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS:
        return False
    return not all(outbound.is_public(address) for address in outbound.resolve(host))


def url_errors(url) -> list[str]:
    if not isinstance(url, str) or not url.strip():
        return ["can't be blank"]
    if any(char.isspace() or not char.isprintable() for char in url):
        # Not a URL (RFC 3986 has no raw whitespace or control characters); urlsplit
        # silently drops tabs and newlines, and no delivery could be made to it.
        return ["invalid url specified"]
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return ["invalid url specified"]
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > 1000:
        return ["invalid url specified"]
    if parts.scheme != "https" and not settings.STOREFRONT_WEBHOOK_ALLOW_INSECURE:
        return ["invalid url specified: webhooks must use https"]
    if _host_refused(parts.hostname):
        return ["invalid url specified: localhost and private addresses are not accepted"]
    return []


def event_errors(event) -> list[str]:
    if not isinstance(event, str) or not event:
        return ["can't be blank"]
    if event not in EVENTS:
        return ["Invalid event specified. Events allowed: " + ", ".join(EVENTS)]
    return []


def check_scope(installation: Installation, event: str) -> None:
    needed = EVENT_SCOPES.get(event.split("/", 1)[0])
    if needed and not (set(needed) & installation.scope_set):
        raise ScopeMissing(f"The {event} event needs the {needed[0]} scope")


def _validate(installation: Installation, url, event) -> None:
    fields = {}
    if errors := url_errors(url):
        fields["url"] = errors
    if errors := event_errors(event):
        fields["event"] = errors
    if fields:
        raise Invalid(fields=fields)
    check_scope(installation, event)


def _save(webhook: Webhook) -> Webhook:
    try:
        with transaction.atomic():
            webhook.save()
    except IntegrityError as error:
        raise AlreadyExists(
            f"A webhook for {webhook.event} to this url already exists for the app"
        ) from error
    return webhook


def _not_installed(installation: Installation) -> NotInstalled:
    return NotInstalled(
        f"app {installation.app_id} is not installed in store {installation.store_id}"
    )


def _lock_installation(installation: Installation) -> None:
    """Within a transaction: the caller's installation locked, as uninstalling locks it
    before its webhooks go; NotInstalled when an uninstall committed since the token was
    checked (the token died with it: the API's 401, not a 404 for the webhook)."""
    if Installation.objects.select_for_update().filter(pk=installation.pk).first() is None:
        raise _not_installed(installation)


def require_installed(installation: Installation) -> None:
    """NotInstalled when the app was uninstalled since its token was checked: a webhook
    not found then is gone with the installation, and the token with it."""
    if not Installation.objects.filter(pk=installation.pk).exists():
        raise _not_installed(installation)


def create_webhook(installation: Installation, *, url, event) -> Webhook:
    _validate(installation, url, event)
    with transaction.atomic():
        # Without the lock, a webhook written while an uninstall commits failed the
        # foreign key check at commit, answered as a duplicate (409).
        _lock_installation(installation)
        return _save(Webhook(installation=installation, url=url, event=event))


def update_webhook(webhook: Webhook, *, url=None, event=None) -> Webhook:
    """Checked before the row is locked (the url check may resolve a name: no network
    call inside a transaction)."""
    new_url = webhook.url if url is None else url
    new_event = webhook.event if event is None else event
    _validate(webhook.installation, new_url, new_event)
    with transaction.atomic():
        installation = webhook.installation
        # The installation before the webhook, in the order uninstalling takes them.
        _lock_installation(installation)
        webhook = locked(Webhook.objects, webhook.pk, "Webhook")
        webhook.installation = installation
        webhook.url, webhook.event = new_url, new_event
        return _save(webhook)


def delete_webhook(webhook: Webhook) -> None:
    with transaction.atomic():
        _lock_installation(webhook.installation)
        locked(Webhook.objects, webhook.pk, "Webhook").delete()
