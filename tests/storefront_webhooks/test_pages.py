"""Store pages rendered by Django: content, language switch, scripts, 404s, query counts."""

import html
import json
import re

import pytest
from django.utils import timezone

from tests.storefront.factories import (
    CategoryFactory,
    InstallationFactory,
    ProductFactory,
    ProductImageFactory,
    ScriptFactory,
    StoreFactory,
    VariantFactory,
)

pytestmark = pytest.mark.django_db


def ls_data(response) -> dict:
    match = re.search(
        r'<script id="ls-data" type="application/json">(.*?)</script>', response.content.decode()
    )
    return json.loads(match.group(1))


def script_srcs(response) -> list[str]:
    found = re.findall(r'<script src="(https://[^"]+)"', response.content.decode())
    return [html.unescape(src) for src in found]


@pytest.fixture
def store():
    return StoreFactory(name={"es": "Tienda Sol", "pt": "Loja Sol"}, currency="ARS")


def test_home_lists_published_products_in_the_main_language(client, store):
    shown = ProductFactory(store=store, name={"es": "Taza", "pt": "Caneca"})
    VariantFactory(product=shown, price="1500.00")
    ProductImageFactory(product=shown, alt=[{"es": "Taza roja", "pt": "Caneca vermelha"}])
    ProductFactory(store=store, name={"es": "Oculto", "pt": "Oculto"}, published=False)
    ProductFactory(name={"es": "Otra tienda", "pt": "Outra loja"})

    response = client.get(f"/stores/{store.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="es">' in page
    assert "Taza" in page and "Caneca" not in page
    assert "Oculto" not in page and "Otra tienda" not in page
    assert "$1.500,00" in page
    assert 'alt="Taza roja"' in page
    assert ls_data(response)["store"]["id"] == store.pk
    assert ls_data(response)["currency"]["code"] == "ARS"

    switched = client.get(f"/stores/{store.pk}/?lang=pt").content.decode()
    assert '<html lang="pt">' in switched and "Caneca" in switched
    assert f'href="/stores/{store.pk}/products/{shown.pk}/?lang=pt"' in switched
    unknown = client.get(f"/stores/{store.pk}/?lang=xx").content.decode()
    assert '<html lang="es">' in unknown


def test_category_page_by_id_and_handle(client, store):
    category = CategoryFactory(
        store=store,
        name={"es": "Cocina", "pt": "Cozinha"},
        handle={"es": "cocina", "pt": "cozinha"},
    )
    CategoryFactory(store=store, parent=category, name={"es": "Tazas", "pt": "Canecas"})
    inside = ProductFactory(store=store, name={"es": "Jarra", "pt": "Jarra"})
    inside.categories.add(category)
    ProductFactory(store=store, name={"es": "Fuera", "pt": "Fora"})

    for key in (category.pk, "cocina", "cozinha"):
        response = client.get(f"/stores/{store.pk}/categories/{key}/")
        page = response.content.decode()
        assert response.status_code == 200
        assert "Jarra" in page and "Fuera" not in page and "Tazas" in page
        assert ls_data(response)["category"] == {"id": category.pk, "name": "Cocina"}


def test_product_page_has_images_price_variants_and_ls_product(client, store):
    product = ProductFactory(
        store=store,
        name={"es": "Remera", "pt": "Camiseta"},
        attributes=[{"es": "Color", "pt": "Cor"}, {"es": "Talle", "pt": "Tamanho"}],
        tags="verano, oferta",
        description={"es": "<p>Algodón <script>alert(1)</script></p>", "pt": ""},
    )
    red = ProductImageFactory(product=product, position=1, alt=[])
    VariantFactory(product=product, values=[{"es": "Rojo"}, {"es": "S"}], price="100.00", stock=0)
    blue = VariantFactory(
        product=product,
        values=[{"es": "Azul"}, {"es": "M"}],
        price="120.00",
        promotional_price="99.90",
        image=red,
    )
    response = client.get(f"/stores/{store.pk}/products/{product.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert f'src="{red.src}" alt="Remera"' in page
    assert '<label for="product-' in page and "Talle" in page
    assert "<script>alert(1)</script>" not in page and "Algodón" in page
    data = ls_data(response)
    assert data["product"] == {
        "id": product.pk,
        "name": "Remera",
        "tags": ["verano", "oferta"],
        "requires_shipping": True,
    }
    assert [variant["values"] for variant in data["variants"]] == [["Rojo", "S"], ["Azul", "M"]]
    chosen = data["variants"][1]
    assert chosen["id"] == blue.pk and chosen["price_short"] == "$99,90"
    assert chosen["element"] == f"#product-{product.pk}"
    assert chosen["image_url"] == red.src
    assert f'id="product-{product.pk}"' in page
    # The first variant is out of stock: the page opens on the first one that can be bought.
    assert 'value="Azul" selected' in page


def test_unknown_or_unpublished_pages_are_404(client, store):
    hidden = ProductFactory(store=store, published=False)
    other = ProductFactory()
    assert client.get("/stores/999999/").status_code == 404
    assert client.get(f"/stores/{store.pk}/products/{hidden.pk}/").status_code == 404
    assert client.get(f"/stores/{store.pk}/products/{other.pk}/").status_code == 404
    assert client.get(f"/stores/{store.pk}/products/no-such-handle/").status_code == 404
    assert client.get(f"/stores/{store.pk}/categories/404/").status_code == 404
    huge = "9" * 30
    assert client.get(f"/stores/{huge}/").status_code == 404
    assert client.get(f"/stores/{huge}/products/1/").status_code == 404
    assert client.get(f"/stores/{store.pk}/products/{huge}/").status_code == 404
    assert client.get(f"/stores/{store.pk}/categories/{huge}/").status_code == 404
    # Past int()'s 4300 digits (was a 500), and a store id that long.
    huger = "9" * 5000
    assert client.get(f"/stores/{store.pk}/products/{'0' * 5000}1/").status_code == 404
    assert client.get(f"/stores/{store.pk}/products/{huger}/").status_code == 404
    assert client.get(f"/stores/{store.pk}/categories/{huger}/").status_code == 404
    assert client.get(f"/stores/{huger}/").status_code == 404
    # Superscript two passes str.isdigit but is no number: a handle no page has (was a 500).
    assert client.get(f"/stores/{store.pk}/products/%C2%B2/").status_code == 404
    assert client.get(f"/stores/{store.pk}/categories/%C2%B2/").status_code == 404
    # No handle holds a NUL (a 500 on PostgreSQL, which cannot compare one).
    assert client.get(f"/stores/{store.pk}/products/a%00b/").status_code == 404
    assert client.get(f"/stores/{store.pk}/categories/a%00b/").status_code == 404


def test_app_scripts_follow_event_where_and_suspension(client, store):
    installation = InstallationFactory(store=store)
    other = InstallationFactory(store=store)
    ScriptFactory(store=store, app=installation.app, src="https://app.example/w.js?v=2")
    ScriptFactory(
        store=store,
        app=installation.app,
        src="https://app.example/late.js",
        event="onfirstinteraction",
    )
    ScriptFactory(
        store=store, app=installation.app, src="https://app.example/pay.js", where="checkout"
    )
    ScriptFactory(
        store=store, app=other.app, src="https://other.example/o.js", where="store,checkout"
    )
    ScriptFactory(src="https://app.example/elsewhere.js")

    response = client.get(f"/stores/{store.pk}/")
    assert script_srcs(response) == [
        f"https://app.example/w.js?v=2&store={store.pk}",
        f"https://other.example/o.js?store={store.pk}",
    ]
    # Loaded by ls.js on the first scroll, click, key or touch.
    assert ls_data(response)["scripts"] == {
        "onfirstinteraction": [f"https://app.example/late.js?store={store.pk}"]
    }

    installation.suspended_at = timezone.now()
    installation.save()
    response = client.get(f"/stores/{store.pk}/")
    assert script_srcs(response) == [f"https://other.example/o.js?store={store.pk}"]
    assert "late.js" not in response.content.decode()

    store.suspended_at = timezone.now()
    store.save()
    response = client.get(f"/stores/{store.pk}/")
    assert script_srcs(response) == []


@pytest.mark.parametrize("count", [2, 40])
def test_pages_use_a_constant_number_of_queries(
    client, store, count, django_assert_max_num_queries
):
    category = CategoryFactory(store=store)
    for _ in range(count):
        product = ProductFactory(store=store)
        product.categories.add(category)
        ProductImageFactory(product=product)
        VariantFactory(product=product)
    product = ProductFactory(store=store, attributes=[{"es": "Talle", "pt": "Tamanho"}])
    for size in range(count):
        VariantFactory(product=product, values=[{"es": f"T{size}"}])
    # store, count, products, images, variants, menu, scripts
    with django_assert_max_num_queries(7):
        assert client.get(f"/stores/{store.pk}/").status_code == 200
    # ... the store comes with the category, which adds its subcategories
    with django_assert_max_num_queries(8):
        assert client.get(f"/stores/{store.pk}/categories/{category.pk}/").status_code == 200
    # product with its store, images, variants, menu, scripts
    with django_assert_max_num_queries(5):
        assert client.get(f"/stores/{store.pk}/products/{product.pk}/").status_code == 200
