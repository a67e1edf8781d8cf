"""manage.py createstore / createapp print JSON that scripts can read."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from storefront.models import App, Store
from tests.storefront.factories import UserFactory

pytestmark = pytest.mark.django_db


def run(*args) -> dict:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue())


def test_createstore_prints_id_and_sets_languages():
    UserFactory(username="maria")
    result = run(
        "createstore", "--owner", "maria", "--name", "Tienda", "--languages", "es,pt",
        "--main-language", "pt",
    )  # fmt: skip
    store = Store.objects.get(pk=result["id"])
    assert store.owner.username == "maria"
    assert store.languages == ["es", "pt"]
    assert store.main_language == "pt"
    assert store.name == {"es": "Tienda", "pt": "Tienda"}


def test_createstore_rejects_unknown_owner_and_foreign_main_language():
    with pytest.raises(CommandError, match="no account"):
        run("createstore", "--owner", "ghost", "--name", "X")
    UserFactory(username="maria")
    with pytest.raises(CommandError, match="main language"):
        run("createstore", "--owner", "maria", "--name", "X", "--main-language", "en")
    assert not Store.objects.exists()


def test_createapp_prints_id_and_secret():
    result = run(
        "createapp", "--name", "Sync", "--redirect-uri", "https://sync.example/cb",
        "--scopes", "read_products,write_products", "--recurring-price", "9.90",
    )  # fmt: skip
    app = App.objects.get(pk=result["app_id"])
    assert app.client_secret == result["client_secret"]
    assert len(result["client_secret"]) >= 32
    assert app.scopes == "read_products,write_products"
    assert str(app.recurring_price) == "9.90"


def test_createapp_rejects_unknown_scope_and_bad_uri():
    with pytest.raises(CommandError, match="unknown scopes"):
        run("createapp", "--name", "X", "--redirect-uri", "https://x.example", "--scopes", "root")
    with pytest.raises(CommandError, match="redirect URI"):
        run("createapp", "--name", "X", "--redirect-uri", "not a url")
    assert not App.objects.exists()


def test_admin_lists_every_storefront_model(admin_client):
    for model in ("store", "app", "installation", "product", "variant", "category", "script"):
        response = admin_client.get(f"/admin/storefront/{model}/?q=x")
        assert response.status_code == 200, model


def test_app_added_in_the_admin_gets_a_secret(admin_client):
    response = admin_client.post(
        "/admin/storefront/app/add/",
        {"name": "Admin App", "redirect_uri": "https://a.example/cb", "scopes": "read_products"},
        follow=True,
    )
    assert response.status_code == 200
    app = App.objects.get(name="Admin App")
    assert len(app.client_secret) == 48
    assert app.client_secret in response.content.decode()
