"""The three paginators, each in its modelled system's exact header format."""

import pytest
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from codehost.api.pagination import GiteaPagination
from registry.api.pagination import HarborPagination
from storefront.api.pagination import TiendanubePagination

factory = APIRequestFactory()


def paginate(paginator, url, total):
    request = Request(factory.get(url))
    items = paginator.paginate_queryset(list(range(total)), request)
    response = paginator.get_paginated_response(items)
    return items, response


def test_harbor_link_is_relative_sorted_unescaped():
    items, response = paginate(
        HarborPagination(), "/api/v2.0/projects?page=2&page_size=10&q=name%3D~dev", 35
    )
    assert items == list(range(10, 20))
    assert response["X-Total-Count"] == "35"
    assert response["Link"] == (
        '</api/v2.0/projects?page=1&page_size=10&q=name=~dev>; rel="prev" , '
        '</api/v2.0/projects?page=3&page_size=10&q=name=~dev>; rel="next"'
    )


def test_harbor_first_page_has_only_next_and_empty_has_no_link():
    _, response = paginate(HarborPagination(), "/api/v2.0/projects", 11)
    assert response["Link"] == '</api/v2.0/projects?page=2&page_size=10>; rel="next"'
    _, empty = paginate(HarborPagination(), "/api/v2.0/projects", 0)
    assert empty["X-Total-Count"] == "0"
    assert not empty.has_header("Link")


def test_harbor_page_size_over_100_is_422_and_zero_means_all():
    with pytest.raises(APIException) as raised:
        paginate(HarborPagination(), "/api/v2.0/projects?page_size=101", 5)
    assert raised.value.status_code == 422
    items, response = paginate(HarborPagination(), "/api/v2.0/projects?page_size=0", 250)
    assert len(items) == 250
    assert not response.has_header("Link")


def test_gitea_link_order_and_absolute_urls(settings):
    settings.EXTERNAL_URL = "http://localhost:3000"
    items, response = paginate(GiteaPagination(), "/api/v1/orgs/acme/teams?page=2&limit=2", 5)
    assert items == [2, 3]
    assert response["Link"] == (
        '<http://localhost:3000/api/v1/orgs/acme/teams?limit=2&page=3>; rel="next",'
        '<http://localhost:3000/api/v1/orgs/acme/teams?limit=2&page=3>; rel="last",'
        '<http://localhost:3000/api/v1/orgs/acme/teams?limit=2&page=1>; rel="first",'
        '<http://localhost:3000/api/v1/orgs/acme/teams?limit=2&page=1>; rel="prev"'
    )
    assert response["Access-Control-Expose-Headers"] == "Link, X-Total-Count"


def test_gitea_limit_is_capped_at_50_and_single_page_has_no_link():
    items, _ = paginate(GiteaPagination(), "/api/v1/repos/search?limit=500", 60)
    assert len(items) == 50
    _, single = paginate(GiteaPagination(), "/api/v1/repos/search", 3)
    assert not single.has_header("Link")
    assert single["X-Total-Count"] == "3"


def test_tiendanube_link_is_absolute_with_all_rels():
    items, response = paginate(TiendanubePagination(), "/v1/1234/products?page=5&per_page=10", 100)
    assert items == list(range(40, 50))
    links = response["Link"]
    assert '<http://testserver/v1/1234/products?page=6&per_page=10>; rel="next"' in links
    assert '<http://testserver/v1/1234/products?page=10&per_page=10>; rel="last"' in links
    assert '<http://testserver/v1/1234/products?page=1&per_page=10>; rel="first"' in links
    assert '<http://testserver/v1/1234/products?page=4&per_page=10>; rel="prev"' in links


def test_tiendanube_per_page_default_30_max_200():
    items, _ = paginate(TiendanubePagination(), "/v1/1/products", 500)
    assert len(items) == 30
    items, _ = paginate(TiendanubePagination(), "/v1/1/products?per_page=1000", 500)
    assert len(items) == 200
