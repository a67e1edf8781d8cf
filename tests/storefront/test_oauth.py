"""OAuth 2 install flow (tiendanube.md section 2): consent, code, token exchange."""

from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.utils import timezone

from config.auth import hash_token
from storefront.models import AccessToken, AuthorizationCode, Installation
from storefront.services import installations
from tests.races import Interleaving, run_together
from tests.storefront.factories import (
    AppFactory,
    InstallationFactory,
    StoreFactory,
    UserFactory,
    issue_token,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(client):
    user = UserFactory(username="merchant")
    client.force_login(user)
    return user


@pytest.fixture
def store(owner):
    return StoreFactory(owner=owner)


@pytest.fixture
def app():
    return AppFactory(scopes="read_products,write_scripts", redirect_uri="https://app.example/cb")


def approve(client, app, store, state="xyz") -> dict:
    response = client.post(
        f"/apps/{app.pk}/authorize?state={state}",
        {"decision": "approve", "store": store.pk, "state": state},
    )
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == app.redirect_uri
    return {key: values[0] for key, values in parse_qs(location.query).items()}


def exchange(client, app, code, as_form=False, **overrides):
    body = {
        "client_id": str(app.pk),
        "client_secret": app.client_secret,
        "grant_type": "authorization_code",
        "code": code,
        **overrides,
    }
    if as_form:
        return client.post(
            "/apps/authorize/token",
            urlencode(body),
            content_type="application/x-www-form-urlencoded",
        )
    return client.post("/apps/authorize/token", body, content_type="application/json")


def test_anonymous_visitor_is_sent_to_login(client, app):
    response = client.get(f"/apps/{app.pk}/authorize?state=abc")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_consent_page_lists_the_scopes(client, app, store):
    response = client.get(f"/apps/{app.pk}/authorize?state=abc")
    assert response.status_code == 200
    page = response.content.decode()
    assert app.name in page
    assert "read_products" in page and "write_scripts" in page
    assert 'value="abc"' in page


def test_approve_redirects_with_code_and_state_then_token_works(client, app, store):
    params = approve(client, app, store, state="csrf-123")
    assert params["state"] == "csrf-123"
    response = exchange(client, app, params["code"])
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "bearer"
    assert body["scope"] == "read_products,write_scripts"
    assert body["user_id"] == str(store.pk)
    api = client.get(
        f"/v1/{store.pk}/products",
        headers={"Authentication": f"bearer {body['access_token']}", "User-Agent": "a (b)"},
    )
    assert api.status_code == 200
    # Only digests are stored.
    assert AccessToken.objects.get().token_hash == hash_token(body["access_token"])
    assert not AuthorizationCode.objects.filter(code_hash=params["code"]).exists()


def test_form_encoded_exchange_is_accepted(client, app, store):
    code = approve(client, app, store)["code"]
    response = exchange(client, app, code, as_form=True)
    assert response.status_code == 200
    assert response.json()["user_id"] == str(store.pk)


def test_multipart_exchange_is_accepted(client, app, store):
    code = approve(client, app, store)["code"]
    body = {"client_id": app.pk, "client_secret": app.client_secret, "code": code}
    response = client.post("/apps/authorize/token", {**body, "grant_type": "authorization_code"})
    assert response.status_code == 200


def test_code_is_single_use(client, app, store):
    code = approve(client, app, store)["code"]
    assert exchange(client, app, code).status_code == 200
    again = exchange(client, app, code)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"


def test_expired_code_is_invalid_grant(client, app, store):
    code = approve(client, app, store)["code"]
    AuthorizationCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = exchange(client, app, code)
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_grant",
        "error_description": "The authorization code has expired",
    }


def test_wrong_secret_or_other_app_or_grant_type(client, app, store):
    code = approve(client, app, store)["code"]
    bad_secret = exchange(client, app, code, client_secret="wrong")
    assert bad_secret.status_code == 401
    assert bad_secret.json()["error"] == "invalid_client"
    other = AppFactory()
    assert exchange(client, other, code).json()["error"] == "invalid_grant"
    grant = exchange(client, app, code, grant_type="password")
    assert grant.status_code == 400
    assert grant.json()["error"] == "unsupported_grant_type"
    missing = client.post("/apps/authorize/token", {}, content_type="application/json")
    assert missing.status_code == 400
    assert missing.json()["error"] == "invalid_request"
    assert "secret" not in bad_secret.content.decode().replace("client_secret", "")
    # The code survived the failed attempts.
    assert exchange(client, app, code).status_code == 200


def test_new_exchange_replaces_the_previous_token(client, app, store):
    first = exchange(client, app, approve(client, app, store)["code"]).json()["access_token"]
    second = exchange(client, app, approve(client, app, store)["code"]).json()["access_token"]
    headers = {"User-Agent": "a (b)"}
    url = f"/v1/{store.pk}/products"
    assert (
        client.get(url, headers={**headers, "Authentication": f"bearer {first}"}).status_code == 401
    )
    assert (
        client.get(url, headers={**headers, "Authentication": f"bearer {second}"}).status_code
        == 200
    )
    assert Installation.objects.count() == 1


def test_consent_is_skipped_once_granted(client, app, store):
    approve(client, app, store)
    response = client.get(f"/apps/{app.pk}/authorize?state=again")
    assert response.status_code == 302
    params = parse_qs(urlsplit(response["Location"]).query)
    assert params["state"] == ["again"]
    assert exchange(client, app, params["code"][0]).status_code == 200


def test_deny_redirects_with_access_denied(client, app, store):
    response = client.post(
        f"/apps/{app.pk}/authorize", {"decision": "deny", "store": store.pk, "state": "s"}
    )
    assert response.status_code == 302
    assert "error=access_denied" in response["Location"]
    assert "state=s" in response["Location"]
    assert not Installation.objects.exists()


def test_owner_cannot_install_into_someone_elses_store(client, app, store):
    foreign = StoreFactory()
    response = client.post(
        f"/apps/{app.pk}/authorize", {"decision": "approve", "store": foreign.pk, "state": "s"}
    )
    assert response.status_code == 200
    assert not Installation.objects.exists()


def test_token_endpoint_answers_only_post_other_methods_find_nothing(client):
    """Tiendanube answers a GET on the token URL with 404 (api-docs issue #37)."""
    for method in ("get", "head", "put", "delete", "options"):
        response = getattr(client, method)("/apps/authorize/token?code=x&client_id=1")
        assert response.status_code == 404, method
        assert response["Content-Type"].startswith("text/html")
    assert client.post("/apps/authorize/token", {}).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_racing_exchanges_of_one_code_get_one_token(live_server):
    store = StoreFactory()
    app = AppFactory()
    code = installations.authorize(app, store)
    body = {
        "client_id": str(app.pk),
        "client_secret": app.client_secret,
        "grant_type": "authorization_code",
        "code": code,
    }

    def exchange_once():
        return requests.post(f"{live_server.url}/apps/authorize/token", json=body, timeout=30)

    statuses = [answer.status_code for answer in run_together([exchange_once] * 6)]
    assert sorted(statuses) == [200] + [400] * 5
    assert AccessToken.objects.count() == 1


def test_token_lookup_is_one_query_and_brings_the_store_owner_and_app(
    django_assert_num_queries,
):
    installation = InstallationFactory(scopes="read_products")
    token = issue_token(installation)
    with django_assert_num_queries(1):
        found = installations.installation_for_token(token)
        assert (found.pk, found.scopes, found.suspended_at) == (
            installation.pk,
            "read_products",
            None,
        )
        assert found.store.languages == installation.store.languages
        assert found.store.owner == installation.store.owner
        assert found.app.client_secret == installation.app.client_secret
    assert installations.installation_for_token(token + "x") is None
    AccessToken.objects.filter(installation=installation).delete()
    assert installations.installation_for_token(token) is None


@pytest.mark.django_db(transaction=True)
def test_an_uninstall_while_the_app_exchanges_its_code_is_no_deadlock(monkeypatch):
    """The exchange spent the code and wrote the first token, the uninstall then locked the
    installation and waited on the code; the token's foreign key check at commit waited on
    the installation: PostgreSQL's deadlock detection failed one of them (26 of 40 racing
    rounds, either side a 500). Both now take the installation first: the uninstall
    waits, then removes the new token with the installation."""
    installation = InstallationFactory()
    code = installations.authorize(installation.app, installation.store)
    interleaving = Interleaving()
    monkeypatch.setattr(
        AccessToken.objects,
        "update_or_create",
        interleaving.after(AccessToken.objects.update_or_create),
    )
    interleaving.run(
        lambda: installations.exchange_code(installation.app, code),
        lambda: installations.uninstall(installation.store_id, installation.app_id),
    )
    assert not Installation.objects.exists() and not AccessToken.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_uninstall_while_the_owner_authorizes_again_is_no_error(monkeypatch):
    """The consent (or its skip) read the installation, the uninstall then deleted it and
    committed, and the new code's foreign key failed at commit: a 500 on the authorize page
    (24 of 40 racing rounds on PostgreSQL). The installation is locked as the uninstall
    locks it: the uninstall waits and takes the new code with it."""
    installation = InstallationFactory()
    interleaving = Interleaving()
    monkeypatch.setattr(
        AuthorizationCode.objects, "create", interleaving.after(AuthorizationCode.objects.create)
    )
    interleaving.run(
        lambda: installations.authorize(installation.app, installation.store),
        lambda: installations.uninstall(installation.store_id, installation.app_id),
    )
    assert not Installation.objects.exists() and not AuthorizationCode.objects.exists()
