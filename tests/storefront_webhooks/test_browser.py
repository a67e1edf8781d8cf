"""Store pages in real headless Chromium (Debian's package, driven by Playwright)."""

import pytest

from storefront.services import suspension
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import (
    InstallationFactory,
    ProductFactory,
    ProductImageFactory,
    StoreFactory,
    VariantFactory,
    issue_token,
)
from tests.storefront_webhooks.script_host import ScriptHost

pytestmark = pytest.mark.django_db(transaction=True)

# The app's script: proves it ran (with its store id) and records every variant change.
APP_JS = """
(function () {
  var src = document.currentScript.src;
  window.appScript = {store: new URL(src).searchParams.get("store"), changes: []};
  LS.registerOnChangeVariant(function (variant) {
    var container = document.querySelector(variant.element);
    window.appScript.changes.push({
      id: variant.id,
      element: variant.element,
      container_has_form: !!(container && container.querySelector("form")),
      price_shown: container ? container.querySelector(".js-price").textContent : null
    });
  });
})();
"""
LATE_JS = "window.lateScript = LS.store.id;"


@pytest.fixture
def script_host():
    host = ScriptHost({"/app.js": APP_JS, "/late.js": LATE_JS})
    yield host
    host.stop()


@pytest.fixture
def shop(client, script_host):
    store = StoreFactory(name={"es": "Tienda", "pt": "Loja"})
    product = ProductFactory(
        store=store,
        name={"es": "Remera", "pt": "Camiseta"},
        attributes=[{"es": "Color", "pt": "Cor"}],
    )
    image = ProductImageFactory(product=product)
    red = VariantFactory(product=product, values=[{"es": "Rojo", "pt": "Vermelho"}], price="10.00")
    blue = VariantFactory(
        product=product, values=[{"es": "Azul", "pt": "Azul"}], price="12.50", image=image
    )
    installation = InstallationFactory(store=store)
    api = StoreApi(client, store.pk, issue_token(installation))
    for src, event in (
        (script_host.url("/app.js"), "onload"),
        (script_host.url("/late.js"), "onfirstinteraction"),
    ):
        response = api.post("scripts", {"src": src, "event": event, "where": "store"})
        assert response.status_code == 201, response.content
    return {
        "store": store,
        "product": product,
        "red": red,
        "blue": blue,
        "installation": installation,
    }


def product_url(live_server, shop):
    return f"{live_server.url}/stores/{shop['store'].pk}/products/{shop['product'].pk}/"


def test_variant_callback_gets_the_variant_with_a_working_selector(live_server, page, shop):
    page.goto(product_url(live_server, shop))
    page.wait_for_function("window.appScript !== undefined")
    assert page.evaluate("window.appScript.store") == str(shop["store"].pk)
    assert page.evaluate("[LS.store.id, LS.lang, LS.currency.code, LS.product.id]") == [
        shop["store"].pk,
        "es",
        "ARS",
        shop["product"].pk,
    ]

    select = page.get_by_label("Color")
    select.select_option("Azul")
    page.wait_for_function("window.appScript.changes.length === 1")
    (change,) = page.evaluate("window.appScript.changes")
    assert change == {
        "id": shop["blue"].pk,
        "element": f"#product-{shop['product'].pk}",
        "container_has_form": True,
        "price_shown": "$12,50",
    }
    select.select_option("Rojo")
    page.wait_for_function("window.appScript.changes.length === 2")
    assert page.evaluate("window.appScript.changes[1].id") == shop["red"].pk


def test_first_interaction_scripts_wait_for_the_shopper(live_server, page, shop):
    page.goto(product_url(live_server, shop))
    page.wait_for_function("window.appScript !== undefined")
    assert page.evaluate("window.lateScript") is None
    page.mouse.wheel(0, 200)
    page.keyboard.press("Tab")
    page.wait_for_function("window.lateScript !== undefined")
    assert page.evaluate("window.lateScript") == shop["store"].pk


def test_scripts_are_gone_while_the_app_or_store_is_suspended(live_server, page, shop, script_host):
    store, installation = shop["store"], shop["installation"]
    suspension.suspend(store.pk, installation.app_id)
    page.goto(product_url(live_server, shop))
    page.wait_for_function("window.LS !== undefined")
    page.keyboard.press("Tab")
    assert page.evaluate("[window.appScript, window.lateScript]") == [None, None]
    assert page.locator("script[src*='127.0.0.1']").count() == 0

    suspension.resume(store.pk, installation.app_id)
    suspension.suspend(store.pk)
    page.goto(f"{live_server.url}/stores/{store.pk}/")
    assert page.locator("script[src*='127.0.0.1']").count() == 0

    suspension.resume(store.pk)
    page.goto(f"{live_server.url}/stores/{store.pk}/")
    page.wait_for_function("window.appScript !== undefined")
    assert page.locator("h1").inner_text() == "Tienda"
