"""List parameters (declared once in `storefront.api.filters`) and product pages read by
id: every bad parameter is named in one 422, in the order the docs list them; a leaf
category, a category with children and a product without any read the same in a page
as one by one."""

import pytest

from tests.storefront.factories import (
    CategoryFactory,
    ProductFactory,
    VariantFactory,
)

pytestmark = pytest.mark.django_db


def test_every_bad_parameter_is_reported_at_once(api):
    response = api.get("products?sort_by=w&published=q&q=&since_id=z&per_page=y&page=x")
    assert response.status_code == 422
    assert response.json() == {
        "page": ["A valid integer is required."],
        "per_page": ["A valid integer is required."],
        "since_id": ["A valid integer is required."],
        "q": ["This field may not be blank."],
        "published": ["Must be a valid boolean."],
        "sort_by": ['"w" is not a valid choice.'],
    }
    assert list(response.json()) == ["page", "per_page", "since_id", "q", "published", "sort_by"]
    images = api.get("products/1/images?position=0&src=")
    assert images.json() == {
        "src": ["This field may not be blank."],
        "position": ["Ensure this value is greater than or equal to 1."],
    }


def test_a_well_formed_value_still_checked_against_the_store(api):
    response = api.get("categories?handle=x&language=fr&since_id=0")
    assert response.status_code == 422
    assert response.json() == {"language": ["is not one of the store's languages ['es', 'pt']"]}


def test_page_categories_with_and_without_children_match_one_by_one(api, store):
    parent = CategoryFactory(store=store)
    leaf = CategoryFactory(store=store, parent=parent)
    later = CategoryFactory(store=store, parent=parent)
    tagged = ProductFactory(store=store)
    VariantFactory(product=tagged, price="3.5", weight="0.125")
    tagged.categories.set([leaf, parent])
    bare = ProductFactory(store=store)

    listed = {product["id"]: product for product in api.get("products").json()}
    assert listed[tagged.pk]["categories"] == [
        api.get(f"categories/{parent.pk}").json(),
        api.get(f"categories/{leaf.pk}").json(),
    ]
    assert listed[tagged.pk]["categories"][0]["subcategories"] == [leaf.pk, later.pk]
    assert listed[tagged.pk]["categories"][1]["subcategories"] == []
    assert (listed[bare.pk]["variants"], listed[bare.pk]["images"]) == ([], [])
    assert listed[bare.pk]["categories"] == []
    for pk in (tagged.pk, bare.pk):
        assert api.get(f"products/{pk}").json() == listed[pk]


def test_sorted_pages_keep_their_order_when_read_by_id(api, store):
    prices = ["9.00", "1.00", "5.00", None, "7.00"]
    for price in prices:
        VariantFactory(product=ProductFactory(store=store), price=price)
    cheapest_first = api.get("products?sort_by=price-ascending&per_page=2&page=2").json()
    assert [product["variants"][0]["price"] for product in cheapest_first] == ["7.00", "9.00"]
    last = api.get("products?sort_by=price-ascending&per_page=2&page=3").json()
    assert [product["variants"][0]["price"] for product in last] == [None]
