"""Unknown paths, wrong methods and crashes answer in each service's own error format."""

import base64
import logging

import pytest

from tests.storefront.conftest import StoreApi
from tests.storefront.factories import InstallationFactory, issue_token


def test_unknown_registry_path_is_harbor_404(client):
    response = client.get("/api/v2.0/xyz")
    assert response.status_code == 404
    assert response.json() == {
        "errors": [{"code": "NOT_FOUND", "message": "path /api/v2.0/xyz was not found"}]
    }


def test_unknown_codehost_path_is_gitea_404(client, settings):
    response = client.delete("/api/v1/no/such/thing")
    assert response.status_code == 404
    assert response.json() == {
        "message": "not found",
        "url": f"{settings.EXTERNAL_URL}/api/swagger",
        "errors": None,
    }


def test_unknown_store_path_is_tiendanube_404(client, db):
    response = client.post("/v1/123/nothing-here", data={}, content_type="application/json")
    assert response.status_code == 404
    body = response.json()
    assert body["code"] == 404
    assert body["message"] == "Not Found"


def test_wrong_method_on_registry_health_is_harbor_405(client):
    response = client.post("/api/v2.0/health")
    assert response.status_code == 405
    assert response.json()["errors"][0]["code"] == "METHOD_NOT_ALLOWED"


@pytest.mark.urls("tests.foundation.boom_urls")
@pytest.mark.parametrize(
    ("path", "check"),
    [
        (
            "/api/v2.0/boom",
            lambda body: (
                body == {"errors": [{"code": "UNKNOWN", "message": "internal server error"}]}
            ),
        ),
        (
            "/api/v1/boom",
            lambda body: body["message"] == "" and body["url"].endswith("/api/swagger"),
        ),
        (
            "/v1/7/boom",
            lambda body: (
                body == {"code": 500, "message": "Internal Server Error", "description": None}
            ),
        ),
    ],
)
def test_crash_is_500_in_service_format_and_logged_with_request_id(client, db, caplog, path, check):
    with caplog.at_level(logging.ERROR, logger="api"):
        response = client.get(path, HTTP_X_REQUEST_ID="req-boom-1")
    assert response.status_code == 500
    assert check(response.json())
    assert b"secret internals" not in response.content
    assert response["X-Request-Id"] == "req-boom-1"
    record = next(r for r in caplog.records if r.name == "api")
    assert record.request_id == "req-boom-1"
    assert "secret internals" in caplog.text  # the details go to the log, not the client


@pytest.mark.urls("tests.foundation.boom_urls")
@pytest.mark.parametrize(
    ("path", "check"),
    [
        ("/api/v2.0/boom", lambda body: body["errors"][0]["code"] == "METHOD_NOT_ALLOWED"),
        ("/api/v1/boom", lambda body: "message" in body and "url" in body),
        (
            "/v1/7/boom",
            lambda body: body["code"] == 405 and body["message"] == "Method Not Allowed",
        ),
    ],
)
def test_wrong_method_is_405_in_service_format(client, db, path, check):
    response = client.put(path, data="{}", content_type="application/json")
    assert response.status_code == 405
    assert check(response.json())


@pytest.mark.django_db
# NUL: PostgreSQL cannot store it; a lone surrogate: no UTF-8 answer can carry it.
@pytest.mark.parametrize("character", ["\\u0000", "\\ud800", "\\udfff"])
@pytest.mark.parametrize(
    ("path", "status", "check"),
    [
        ("/api/v2.0/projects", 400, lambda body: body["errors"][0]["code"] == "BAD_REQUEST"),
        # Gitea answers every body it cannot bind with 422.
        ("/api/v1/user/repos", 422, lambda body: "message" in body and "url" in body),
    ],
)
def test_nul_or_lone_surrogate_in_a_json_body_is_refused_not_500(
    client, admin_user, path, status, check, character
):
    response = client.post(
        path,
        data=f'{{"project_name": "a{character}b", "name": "a{character}b"}}',
        content_type="application/json",
        HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"admin:password").decode(),
    )
    assert response.status_code == status
    assert check(response.json())


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [200, 100_000])
@pytest.mark.parametrize(
    ("path", "check"),
    [
        ("/api/v2.0/projects", lambda body: body["errors"][0]["code"] == "UNPROCESSABLE_ENTITY"),
        ("/api/v1/user/repos", lambda body: "nested too deeply" in body["message"]),
    ],
)
def test_deeply_nested_json_body_is_refused_not_500(client, admin_user, path, check, depth):
    # 200 levels parse, but walking them recursed past Python's limit; 100,000 do not parse.
    response = client.post(
        path,
        data='{"project_name": "a", "name": ' + "[" * depth + "]" * depth + "}",
        content_type="application/json",
        HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"admin:password").decode(),
    )
    assert response.status_code == 422
    assert check(response.json())


def basic_admin() -> str:
    return "Basic " + base64.b64encode(b"admin:password").decode()


# More query parameters than DATA_UPLOAD_MAX_NUMBER_FIELDS (1000) fit in a request line
# that gunicorn takes (4094 bytes): `a&` 1,100 times is 2,200 bytes.
TOO_MANY = "a&" * 1100


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "check"),
    [
        ("/api/v2.0/projects", lambda body: body["errors"][0]["code"] == "BAD_REQUEST"),
        ("/api/v1/repos/search", lambda body: "message" in body and "url" in body),
        ("/api/v1/user", lambda body: "message" in body and "url" in body),
        ("/v2/_catalog", lambda body: body["errors"][0]["code"] == "UNSUPPORTED"),
        ("/service/token", lambda body: body["errors"][0]["code"] == "UNSUPPORTED"),
    ],
)
def test_too_many_query_parameters_are_a_400_in_the_services_format(
    client, admin_user, path, check
):
    response = client.get(f"{path}?{TOO_MANY}", HTTP_AUTHORIZATION=basic_admin())
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert check(response.json())


@pytest.mark.django_db
def test_too_many_query_parameters_to_the_store_api_are_a_tiendanube_400(client):
    installation = InstallationFactory()
    api = StoreApi(client, installation.store_id, issue_token(installation))
    response = api.get(f"/products?{TOO_MANY}")
    assert response.status_code == 400
    assert response.json()["code"] == 400


@pytest.mark.django_db
def test_too_many_form_fields_in_a_body_are_refused_not_500(client, admin_user):
    response = client.post(
        "/api/v1/user/repos",
        data=TOO_MANY,
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=basic_admin(),
    )
    assert response.status_code == 400
    assert response.json()["message"] == "too many parameters"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "check"),
    [
        (
            "/api/v2.0/projects",
            lambda body: body == {"errors": [{"code": "BAD_REQUEST", "message": "bad request"}]},
        ),
        ("/api/v1/version", lambda body: body["message"] == "bad request" and "url" in body),
        ("/v1/7/products", lambda body: body["code"] == 400 and body["message"] == "Bad Request"),
        ("/v2/", lambda body: body["errors"][0]["code"] == "UNSUPPORTED"),
        ("/service/token", lambda body: body["errors"][0]["code"] == "UNSUPPORTED"),
    ],
)
def test_a_host_not_allowed_is_refused_in_the_services_format(client, path, check):
    """Django refuses the Host before any view (CommonMiddleware): its 400 is the service's
    error body, not Django's HTML page."""
    response = client.get(path, HTTP_HOST="elsewhere.example")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert check(response.json())


def test_a_host_not_allowed_elsewhere_keeps_django_s_page(client):
    response = client.get("/accounts/login/", HTTP_HOST="elsewhere.example")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            "/api/v2.0/projects",
            b'{"errors":[{"code":"UNKNOWN","message":"internal server error"}]}',
        ),
        ("/v1/7/products", b'{"code":500,"message":"Internal Server Error","description":null}'),
    ],
)
def test_django_s_own_500_is_in_the_services_format(rf, path, body):
    """A crash outside the views (in middleware) is answered by the root URLconf's
    handler500."""
    from django.urls import get_resolver

    response = get_resolver().resolve_error_handler(500)(rf.get(path))
    assert (response.status_code, response.content) == (500, body)
    page = get_resolver().resolve_error_handler(500)(rf.get("/admin/"))
    assert page["Content-Type"].startswith("text/html")
