"""Deleting a store or an app in the admin: the installed apps hear app/uninstalled, as when
the owner uninstalls them (a bare cascade delete told them nothing)."""

import hashlib
import hmac
import json

import pytest

from storefront.models import App, Delivery, Installation, Product, Script, Store, Webhook
from tests.conftest import wait_until
from tests.storefront.factories import (
    AppFactory,
    InstallationFactory,
    ProductFactory,
    ScriptFactory,
    StoreFactory,
    UserFactory,
)
from tests.storefront_webhooks.factories import WebhookFactory


@pytest.fixture
def site_admin(client):
    client.force_login(UserFactory(username="site-admin", is_staff=True, is_superuser=True))
    return client


def delete_in_admin(client, model: str, pk: int, how: str):
    if how == "delete page":
        return client.post(f"/admin/storefront/{model}/{pk}/delete/", {"post": "yes"})
    return client.post(
        f"/admin/storefront/{model}/",
        {"action": "delete_selected", "_selected_action": [pk], "post": "yes"},
    )


def settled():
    return not Delivery.objects.filter(status=Delivery.PENDING).exists()


def signed_by(app, request) -> bool:
    expected = hmac.new(app.client_secret.encode(), request.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(request.headers["X-Linkedstore-Hmac-Sha256"], expected)


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_deleting_a_store_tells_every_installed_app(celery_worker, receiver, site_admin):
    store = StoreFactory()
    installed = [InstallationFactory(store=store) for _ in range(2)]
    for number, installation in enumerate(installed):
        WebhookFactory(
            installation=installation, event="app/uninstalled", url=receiver.url(f"/{number}")
        )
        ScriptFactory(store=store, app=installation.app)
    ProductFactory(store=store)
    elsewhere = InstallationFactory(app=installed[0].app)  # the same app in another store

    response = delete_in_admin(site_admin, "store", store.pk, "delete page")
    assert response.status_code == 302

    wait_until(lambda: all(receiver.at(f"/{n}") for n in range(2)), 20, message="both POSTs")
    wait_until(settled, 20, message="deliveries to settle")
    for number, installation in enumerate(installed):
        (request,) = receiver.at(f"/{number}")
        assert json.loads(request.body) == {
            "store_id": store.pk,
            "event": "app/uninstalled",
            "id": installation.app_id,
        }
        assert signed_by(installation.app, request)
    assert set(Delivery.objects.values_list("status", "store_id")) == {(Delivery.DELIVERED, None)}
    assert not Store.objects.filter(pk=store.pk).exists()
    assert list(Installation.objects.all()) == [elsewhere]
    assert not Script.objects.exists() and not Product.objects.exists()
    assert not Webhook.objects.filter(installation__store_id=store.pk).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["delete page", "delete_selected"])
def test_both_admin_deletes_of_a_store_uninstall_its_apps(site_admin, how):
    installation = InstallationFactory()
    WebhookFactory(installation=installation, event="app/uninstalled")
    response = delete_in_admin(site_admin, "store", installation.store_id, how)
    assert response.status_code == 302
    assert not Store.objects.exists() and not Installation.objects.exists()
    (delivery,) = Delivery.objects.all()
    assert (delivery.event, delivery.store_id, delivery.app_id) == (
        "app/uninstalled",
        None,
        installation.app_id,
    )
    assert json.loads(delivery.body)["store_id"] == installation.store_id


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_an_app_is_deleted_only_once_uninstalled_everywhere_and_told(
    celery_worker, receiver, site_admin
):
    installation = InstallationFactory()
    app = installation.app
    WebhookFactory(installation=installation, event="app/uninstalled", url=receiver.url("/gone"))

    for how in ("delete page", "delete_selected"):
        refused = delete_in_admin(site_admin, "app", app.pk, how)
        assert refused.status_code == 200, how  # the page listing what keeps it
        page = refused.content.decode()
        assert f"installed in store {installation.store_id}: uninstall it there first" in page
    assert App.objects.filter(pk=app.pk).exists() and Installation.objects.exists()

    # Uninstalled (here by deleting the installation): the app hears it, then may go.
    response = delete_in_admin(site_admin, "installation", installation.pk, "delete page")
    assert response.status_code == 302
    wait_until(lambda: receiver.at("/gone"), 20, message="the app/uninstalled POST")
    wait_until(settled, 20, message="deliveries to settle")
    (request,) = receiver.at("/gone")
    assert json.loads(request.body)["event"] == "app/uninstalled"
    assert signed_by(app, request)
    response = delete_in_admin(site_admin, "app", app.pk, "delete page")
    assert response.status_code == 302
    assert not App.objects.filter(pk=app.pk).exists()


@pytest.mark.django_db
def test_an_app_with_a_delivery_pending_is_not_deleted(site_admin):
    installation = InstallationFactory()
    app = installation.app
    WebhookFactory(installation=installation, event="app/uninstalled")
    response = delete_in_admin(site_admin, "installation", installation.pk, "delete page")
    assert response.status_code == 302
    assert Delivery.objects.get().status == Delivery.PENDING
    refused = delete_in_admin(site_admin, "app", app.pk, "delete_selected")
    assert refused.status_code == 200
    assert "1 webhook delivery(ies) to it still pending" in refused.content.decode()
    assert App.objects.filter(pk=app.pk).exists() and Delivery.objects.exists()
    # Never installed: nothing to tell, it goes at once.
    unused = AppFactory()
    assert delete_in_admin(site_admin, "app", unused.pk, "delete page").status_code == 302
    assert not App.objects.filter(pk=unused.pk).exists()
