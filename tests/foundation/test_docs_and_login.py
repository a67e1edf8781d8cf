import re

import pytest

from config.docs import SERVICES


@pytest.mark.parametrize("service", list(SERVICES))
def test_swagger_ui_and_its_assets_are_served_locally(client, service):
    page = client.get(f"/api/docs/{service}/")
    assert page.status_code == 200
    html = page.content.decode()
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    assert any(asset.endswith(".js") for asset in assets)
    # No asset from elsewhere (drf-spectacular's default is jsDelivr's CDN). Not a bare
    # "cdn" search: the page's random CSRF token may hold those letters.
    assert re.findall(r'(?:src|href)="((?:https?:)?//[^"]*)"', html) == []
    assert "jsdelivr" not in html and "unpkg" not in html
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
    schema = client.get(f"/api/docs/{service}/schema/?format=json")
    assert schema.status_code == 200
    assert schema.json()["openapi"].startswith("3.")


@pytest.mark.django_db
def test_session_login_page_signs_in(client, django_user_model):
    django_user_model.objects.create_user("owner", password="shop-secret")
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "owner", "password": "shop-secret"})
    assert response.status_code == 302
    assert client.session["_auth_user_id"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/accounts/password_reset/",
        "/accounts/password_reset/done/",
        "/accounts/reset/MQ/set-password/",
        "/accounts/reset/done/",
    ],
)
def test_no_self_service_password_reset(client, django_user_model, mailoutbox, path):
    """The server sends no mail: the anonymous reset form only tried SMTP on localhost for
    anyone, unthrottled. Passwords are reset by an administrator."""
    django_user_model.objects.create_user("owner", email="owner@example.com", password="x")
    assert client.get(path).status_code == 404
    assert client.post(path, {"email": "owner@example.com"}).status_code == 404
    assert mailoutbox == []


@pytest.mark.django_db
def test_the_other_account_pages_stay(client, django_user_model):
    django_user_model.objects.create_user("owner", password="shop-secret")
    client.post("/accounts/login/", {"username": "owner", "password": "shop-secret"})
    assert client.get("/accounts/password_change/").status_code == 200
    assert client.get("/accounts/password_change/done/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 200  # "logged out" page
    assert "_auth_user_id" not in client.session
