"""The front door at / and the API documentation index at /api/docs/."""

import re

import pytest

pytestmark = pytest.mark.django_db


def links(html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', html)


def test_front_door_says_what_the_server_is_and_links_everything(client, settings):
    page = client.get("/")
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert "<script" not in html
    assert "Harbor" in html and "Gitea" in html and "Tiendanube" in html
    found = links(html)
    for target in (
        "/admin/",
        "/api/docs/",
        "/api/docs/registry/",
        "/api/docs/codehost/",
        "/api/docs/storefront/",
        "/api/docs/registry/schema/",
    ):
        assert target in found
    base = settings.EXTERNAL_URL
    for url in (f"{base}/api/v2.0/", f"{base}/api/v1/", f"{base}/v1/"):
        assert url in html
    assert f"git clone {base}/acme/demo.git" in html


def test_every_link_of_the_front_door_answers(client):
    for target in links(client.get("/").content.decode()):
        answer = client.get(target)
        assert answer.status_code in (200, 302), target


def test_docs_index_lists_the_three_swagger_uis_and_schemas(client):
    page = client.get("/api/docs/")
    assert page.status_code == 200
    found = links(page.content.decode())
    for service in ("registry", "codehost", "storefront"):
        assert f"/api/docs/{service}/" in found
        assert f"/api/docs/{service}/schema/" in found
        assert client.get(f"/api/docs/{service}/").status_code == 200


def test_front_door_answers_only_reads(client):
    assert client.post("/").status_code == 405
    assert client.head("/").status_code == 200
