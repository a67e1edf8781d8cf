"""`/v2/` requests skip the browser pages' middleware (settings.LEAN_ROUTES) and answer
exactly as through the whole stack: same status, body and headers (the security headers,
X-Request-Id, Content-Length), the Host check kept, no cookie."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from config.middleware import LeanRoutesMiddleware
from tests.registry_oci.conftest import OCI_MANIFEST

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def answers(client: Client, reg, digest: str) -> list:
    """The pull path's answers and refusals: (status, headers but the request id, body)."""
    bearer = reg.request("GET", "/service/token?scope=repository:team/app:pull").json()["token"]
    sent = {"HTTP_X_REQUEST_ID": "lean-1", "HTTP_ACCEPT": OCI_MANIFEST}
    signed = {**sent, "HTTP_AUTHORIZATION": f"Bearer {bearer}"}
    requests = [
        ("get", "/v2/", sent),
        ("get", "/v2/team/app/manifests/v1", signed),
        ("head", f"/v2/team/app/manifests/{digest}", signed),
        ("get", "/v2/team/app/manifests/v2", signed),
        ("get", "/v2/team/app/manifests/v1", sent),
        ("get", "/v2/Bad/Name/tags/list", signed),
        ("get", "/v2/team/app.git/info/refs", sent),
    ]
    seen = []
    for method, path, headers in requests:
        response = getattr(client, method)(path, **headers)
        assert response["X-Request-Id"] == "lean-1"
        assert not response.cookies
        seen.append(
            (
                response.status_code,
                {k: v for k, v in response.items() if k != "Date"},
                response.content,
            )
        )
    return seen


def test_v2_answers_as_through_the_whole_middleware_stack(reg, project, settings):
    digest = reg.push_image("team/app", "v1")
    lean = answers(Client(), reg, digest)
    for status, headers, body in lean:
        for name, value in SECURITY_HEADERS.items():
            assert headers[name] == value
        assert headers["Docker-Distribution-API-Version"] == "registry/2.0"
        assert int(headers["Content-Length"]) == len(body) or status == 200
    assert [status for status, _, _ in lean] == [401, 200, 200, 404, 401, 400, 404]
    settings.LEAN_ROUTES = {}
    assert answers(Client(), reg, digest) == lean


def test_v2_refuses_a_host_not_allowed(db, client):
    assert client.get("/v2/", HTTP_HOST="registry.attacker.example").status_code == 400


def test_a_lean_route_refuses_middleware_it_would_not_run(settings):
    settings.LEAN_ROUTES = {
        "/v2/": {
            "URLCONF": "config.distribution_urls",
            "MIDDLEWARE": ["django.middleware.csrf.CsrfViewMiddleware"],
        }
    }
    with pytest.raises(ImproperlyConfigured):
        LeanRoutesMiddleware(lambda request: None)
