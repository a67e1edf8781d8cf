"""A store whose languages the database's product JSON cannot write as Python does (none
at all, or one twice: an operator's edit in the admin or `createstore --languages es,es`)
has its product pages rendered by Python: never a 500, never an object with a key twice."""

import orjson
import pytest

from storefront.api import product_json, rows
from tests.storefront.factories import CategoryFactory, ProductFactory, VariantFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("languages", [[], ["es", "es"], ["es", "pt", "es"]])
def test_odd_store_languages_are_rendered_by_python(api, store, languages):
    product = ProductFactory(store=store, name={"es": "uno", "pt": "um"})
    VariantFactory(product=product)
    product.categories.set([CategoryFactory(store=store)])
    store.languages = languages
    store.save()
    assert product_json.page_body(store, [product.pk]) is None
    page = api.get("products")
    assert page.status_code == 200, page.content
    assert page.content == orjson.dumps(
        rows.render_products(store, rows.product_rows([product.pk]))
    )
    assert page.json()[0]["name"] == {code: {"es": "uno", "pt": "um"}[code] for code in languages}
