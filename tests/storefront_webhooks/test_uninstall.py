"""Uninstalling an app: the owner's installed apps page, the admin action and the command.

The app hears app/uninstalled (id = the app's id) unless the store or the app's access is
suspended; its token, webhooks and scripts go; its other pending deliveries are dropped.
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from storefront.models import Delivery, Installation, Script, Webhook
from storefront.services import events, installations
from tests.conftest import wait_until
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import (
    InstallationFactory,
    ScriptFactory,
    UserFactory,
    issue_token,
)
from tests.storefront_webhooks.factories import WebhookFactory

PAGE = "/apps/installed"


def settled():
    return not Delivery.objects.filter(status=Delivery.PENDING).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_owner_uninstalls_an_app_which_hears_it_and_loses_its_access(
    celery_worker, client, receiver
):
    installation = InstallationFactory()
    store, app = installation.store, installation.app
    api = StoreApi(client, store.pk, issue_token(installation))
    WebhookFactory(installation=installation, event="app/uninstalled", url=receiver.url("/gone"))
    WebhookFactory(installation=installation, event="product/updated", url=receiver.url("/p"))
    ScriptFactory(store=store, app=app, src="https://app.example.com/w.js", event="onload")
    # A delivery of another event still waiting for the app when it is uninstalled.
    receiver.plan("/p", "hang")
    events.emit(store.pk, "product/updated", 5)
    wait_until(lambda: receiver.at("/p"), 20, message="the product/updated attempt")
    assert api.get("products").status_code == 200

    client.force_login(store.owner)
    listing = client.get(PAGE)
    assert listing.status_code == 200 and app.name in listing.content.decode()
    response = client.post(PAGE, {"installation": installation.pk})
    assert response.status_code == 302 and response["Location"] == PAGE

    wait_until(lambda: receiver.at("/gone"), 20, message="the app/uninstalled POST")
    wait_until(settled, 20, message="deliveries to settle")
    (request,) = receiver.at("/gone")
    assert json.loads(request.body) == {
        "store_id": store.pk,
        "event": "app/uninstalled",
        "id": app.pk,
    }
    product_delivery = Delivery.objects.get(event="product/updated")
    assert product_delivery.status == Delivery.DROPPED
    assert product_delivery.outcome == "not sent: the app was uninstalled"
    assert len(receiver.at("/p")) == 1
    assert not Installation.objects.filter(pk=installation.pk).exists()
    assert not Webhook.objects.exists() and not Script.objects.exists()
    client.logout()
    assert api.get("products").status_code == 401
    assert "app.example.com/w.js" not in client.get(f"/stores/{store.pk}/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("suspended", ["store", "app"])
def test_no_app_uninstalled_webhook_while_suspended(suspended):
    installation = InstallationFactory()
    WebhookFactory(installation=installation, event="app/uninstalled")
    call_command(
        "suspendstore",
        installation.store_id,
        *(["--app", str(installation.app_id)] if suspended == "app" else []),
        stdout=io.StringIO(),
    )
    Delivery.objects.all().delete()  # the app/suspended record is not what this checks

    call_command(
        "uninstallapp",
        installation.store_id,
        installation.app_id,
        stdout=io.StringIO(),
    )
    assert not Delivery.objects.exists()
    assert not Installation.objects.exists()


@pytest.mark.django_db
def test_owners_see_and_uninstall_only_their_own_installations(client):
    mine = InstallationFactory()
    theirs = InstallationFactory()
    client.force_login(mine.store.owner)

    page = client.get(PAGE).content.decode()
    assert mine.app.name in page and theirs.app.name not in page
    # "²" passes str.isdigit but is no number (was a 500).
    for bad in (theirs.pk, "x", "9" * 40, "", "\u00b2"):
        assert client.post(PAGE, {"installation": bad}).status_code == 404
    assert Installation.objects.count() == 2
    assert client.put(PAGE).status_code == 405
    client.logout()
    assert client.get(PAGE).status_code == 302  # to the login page
    assert client.post(PAGE, {"installation": mine.pk}).status_code == 302
    assert Installation.objects.count() == 2


@pytest.mark.django_db
def test_admin_action_and_command_uninstall(client):
    first, second = InstallationFactory(), InstallationFactory()
    client.force_login(UserFactory(username="site-admin", is_staff=True, is_superuser=True))
    response = client.post(
        "/admin/storefront/installation/",
        {"action": "uninstall_apps", "_selected_action": [first.pk]},
    )
    assert response.status_code == 302
    assert list(Installation.objects.values_list("pk", flat=True)) == [second.pk]

    with pytest.raises(CommandError, match="not installed"):
        call_command("uninstallapp", first.store_id, first.app_id)
    call_command("uninstallapp", second.store_id, second.app_id, stdout=io.StringIO())
    assert not Installation.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["delete page", "delete_selected"])
def test_admin_delete_is_an_uninstall(client, how):
    """Deleting an installation in the admin uninstalls the app as the action does: it
    hears app/uninstalled and its webhooks go (a bare row delete told it nothing)."""
    installation = InstallationFactory()
    WebhookFactory(installation=installation, event="app/uninstalled")
    client.force_login(UserFactory(username="site-admin", is_staff=True, is_superuser=True))
    if how == "delete page":
        url = f"/admin/storefront/installation/{installation.pk}/delete/"
        response = client.post(url, {"post": "yes"})
    else:
        response = client.post(
            "/admin/storefront/installation/",
            {"action": "delete_selected", "_selected_action": [installation.pk], "post": "yes"},
        )
    assert response.status_code == 302
    assert not Installation.objects.exists()
    (delivery,) = Delivery.objects.all()
    assert (delivery.event, delivery.store_id) == ("app/uninstalled", installation.store_id)


def _other_request_first(monkeypatch):
    """The uninstall of this request runs just after another request's (a second click,
    another admin) committed the same one: the real service, twice."""
    real = installations.uninstall

    def raced(store_id, app_id):
        real(store_id, app_id)
        return real(store_id, app_id)

    monkeypatch.setattr(installations, "uninstall", raced)


@pytest.mark.django_db
def test_a_second_click_on_uninstall_racing_the_first_is_no_error(client, monkeypatch):
    """Two POSTs of one Uninstall button at once: the second found the installation, then
    the first removed it (was a 500, NotInstalled; seen on the running server)."""
    installation = InstallationFactory()
    client.force_login(installation.store.owner)
    _other_request_first(monkeypatch)

    response = client.post(PAGE, {"installation": installation.pk}, follow=True)
    assert response.redirect_chain == [(PAGE, 302)]
    assert "was already uninstalled" in response.content.decode()
    assert not Installation.objects.exists()


@pytest.mark.django_db
def test_admin_uninstall_of_an_installation_gone_meanwhile_is_no_error(client, monkeypatch):
    first, second = InstallationFactory(), InstallationFactory()
    client.force_login(UserFactory(username="site-admin", is_staff=True, is_superuser=True))
    _other_request_first(monkeypatch)

    response = client.post(
        "/admin/storefront/installation/",
        {"action": "uninstall_apps", "_selected_action": [first.pk, second.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "Uninstalled 0 app(s)." in response.content.decode()
    assert not Installation.objects.exists()


@pytest.mark.django_db
def test_a_script_or_webhook_created_while_the_app_is_uninstalled_does_not_outlive_it(
    settings,
):
    """The request's token was checked, then the uninstall committed: the script was
    stored for an app no longer installed (seen through gunicorn on PostgreSQL: 1 to 4 of
    4 racing scripts kept, shown again after a reinstall) and the webhook failed the
    foreign key check at commit, answered 409 as a duplicate."""
    from storefront.errors import NotInstalled
    from storefront.services import scripts, webhooks

    settings.STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = True
    installation = InstallationFactory()
    store, app = installation.store, installation.app
    as_checked = Installation.objects.select_related("store", "app").get(pk=installation.pk)
    installations.uninstall(store.pk, app.pk)

    with pytest.raises(NotInstalled):
        scripts.create_script(
            store, app, {"src": "https://app.example.com/w.js", "event": "onload"}
        )
    with pytest.raises(NotInstalled):
        webhooks.create_webhook(as_checked, url="https://hooks.example.com/x", event="app/resumed")
    assert not Script.objects.exists() and not Webhook.objects.exists()


@pytest.mark.django_db
def test_api_create_racing_the_uninstall_is_401(client, monkeypatch):
    from storefront.services import scripts

    installation = InstallationFactory()
    api = StoreApi(client, installation.store_id, issue_token(installation))
    real = scripts.create_script

    def uninstalled_first(store, app, data):
        installations.uninstall(store.pk, app.pk)
        return real(store, app, data)

    monkeypatch.setattr(scripts, "create_script", uninstalled_first)
    response = api.post(
        "scripts", {"src": "https://app.example.com/w.js", "event": "onload", "where": "store"}
    )
    assert response.status_code == 401
    assert response.json() == {
        "code": 401,
        "message": "Unauthorized",
        "description": "Invalid access token",
    }
    assert not Script.objects.exists()
