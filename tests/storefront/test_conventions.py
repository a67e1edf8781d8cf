"""Request conventions every /v1/{store_id}/ call follows (tiendanube.md sections 1, 3, 4)."""

import re

import pytest
from django.utils import timezone

from storefront.api.exceptions import DOMAIN_STATUS
from storefront.errors import StorefrontError
from tests.storefront.factories import InstallationFactory, ProductFactory, issue_token

pytestmark = pytest.mark.django_db

UNAUTHORIZED = {"code": 401, "message": "Unauthorized", "description": "Invalid access token"}


def test_missing_or_wrong_token_is_401_in_tiendanube_form(api):
    assert api.get("products", headers={"Authentication": None}).json() == UNAUTHORIZED
    response = api.get("products", headers={"Authentication": "bearer nope"})
    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED
    assert response["X-Main-Language"] == "es"


def test_standard_authorization_bearer_header_is_accepted(api):
    response = api.get(
        "products", headers={"Authentication": None, "Authorization": f"Bearer {api.token}"}
    )
    assert response.status_code == 200


def test_token_of_another_store_never_reaches_its_data(api, client):
    other = InstallationFactory()
    ProductFactory(store=other.store)
    response = client.get(
        f"/v1/{other.store_id}/products",
        headers={"Authentication": f"bearer {api.token}", "User-Agent": "x (y)"},
    )
    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED


def test_user_agent_is_required(api):
    response = api.get("products", headers={"User-Agent": None})
    assert response.status_code == 400
    assert response.json()["code"] == 400
    assert "User-Agent" in response.json()["description"]


def test_body_without_content_type_is_415(api, client):
    response = client.generic(
        "POST",
        api.url("products"),
        data=b'{"name": "x"}',
        content_type="",
        headers={"Authentication": f"bearer {api.token}", "User-Agent": "x (y)"},
    )
    assert response.status_code == 415
    assert response.json()["code"] == 415


def test_invalid_json_is_400_with_error_key(api):
    response = api.post("products", '{"name": ')
    assert response.status_code == 400
    assert response.json() == {"error": "Problems parsing JSON"}


@pytest.mark.parametrize("depth", [200, 100_000])
def test_deeply_nested_json_is_400_not_500(api, depth):
    response = api.post("products", '{"name": ' + "[" * depth + "]" * depth + "}")
    assert response.status_code == 400
    assert response.json() == {"error": "Problems parsing JSON"}


def test_invalid_fields_are_422_field_map(api):
    response = api.post("products", {"invalid_name": "x"})
    assert response.status_code == 422
    assert response.json() == {"name": ["can't be blank"]}


def test_unknown_id_is_404_envelope(api):
    response = api.get("products/999999")
    assert response.status_code == 404
    assert response.json() == {
        "code": 404,
        "message": "Not Found",
        "description": "Product with such id does not exist",
    }
    assert api.get(f"products/{2**64}").status_code == 404


def test_head_answers_headers_only(api, store):
    ProductFactory(store=store)
    response = api.head("products")
    assert response.status_code == 200
    assert response.content == b""
    assert response["X-Total-Count"] == "1"
    assert response["X-Main-Language"] == "es"
    assert response["X-Rate-Limit-Limit"] == "40"


def test_put_with_empty_body_keeps_the_product(api, store):
    product = ProductFactory(store=store)
    response = api.put(f"products/{product.pk}", headers={"Content-Length": "0"})
    assert response.status_code == 200
    assert response.json()["id"] == product.pk


def test_delete_answers_200_empty_object(api, store):
    product = ProductFactory(store=store)
    response = api.delete(f"products/{product.pk}")
    assert response.status_code == 200
    assert response.json() == {}


def test_times_are_utc_without_colon_and_fields_trims(api, store):
    product = ProductFactory(store=store)
    body = api.get(f"products/{product.pk}?fields=id,created_at").json()
    assert set(body) == {"id", "created_at"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000", body["created_at"])
    listed = api.get("products?fields=id").json()
    assert listed == [{"id": product.pk}]


@pytest.mark.parametrize("suspended", ["store", "installation"])
def test_suspension_gives_402(api, installation, suspended):
    target = installation.store if suspended == "store" else installation
    target.suspended_at = timezone.now()
    target.save()
    response = api.get("products")
    assert response.status_code == 402
    assert response.json()["code"] == 402
    assert response.json()["message"] == "Payment Required"
    assert response["X-Rate-Limit-Limit"] == "40"


def test_scopes_are_enforced_per_resource(client):
    installation = InstallationFactory(scopes="read_products")
    headers = {"Authentication": f"bearer {issue_token(installation)}", "User-Agent": "x (y)"}
    base = f"/v1/{installation.store_id}"
    assert client.get(f"{base}/products", headers=headers).status_code == 200
    refused = client.post(
        f"{base}/products", data={"name": "x"}, content_type="application/json", headers=headers
    )
    assert refused.status_code == 403
    assert refused.json()["description"] == "This action requires the write_products scope"
    assert client.get(f"{base}/scripts", headers=headers).status_code == 403
    # The store itself needs no scope.
    assert client.get(f"{base}/store", headers=headers).status_code == 200


def test_write_scope_implies_read(client):
    installation = InstallationFactory(scopes="write_products")
    headers = {"Authentication": f"bearer {issue_token(installation)}", "User-Agent": "x (y)"}
    assert client.get(f"/v1/{installation.store_id}/categories", headers=headers).status_code == 200


def test_unknown_path_is_404_envelope(api):
    response = api.get("nothing-here")
    assert response.status_code == 404
    assert response.json()["message"] == "Not Found"


def test_every_domain_error_has_its_answer():
    """The business rules' refusals are answered from one table; one missing from it would
    reach the client as a 500."""
    assert {kind.code for kind in StorefrontError.__subclasses__()} == set(DOMAIN_STATUS)
