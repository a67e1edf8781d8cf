"""Deleting an account is one operation across the three services, through Harbor's
`DELETE /api/v2.0/users/{id}`, Gitea's `DELETE /api/v1/admin/users/{username}` and the
admin site alike: refused with a clear 4xx (Harbor 412, Gitea 422, the admin's "cannot
delete" page) while the account owns repositories, belongs to organizations or owns
stores; otherwise deleted with its namespace directory, so that a new account of that
name starts from nothing. Never a 500, never orphaned files."""

import base64
import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from codehost.models import Owner
from tests.registry.factories import PASSWORD, UserFactory
from tests.storefront.factories import StoreFactory

pytestmark = pytest.mark.django_db

User = get_user_model()
REPOS = "user still has ownership of repositories"
ORGS = "user still has membership of organizations"
STORES = "user still owns stores [count: 1]"


def basic(username: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{PASSWORD}".encode()).decode()


def call(method: str, path: str, username: str, body=None):
    return Client().generic(
        method,
        path,
        data="" if body is None else json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=basic(username),
    )


@pytest.fixture
def git_root(settings):
    root = Path(settings.CODEHOST_GIT_ROOT)
    for name in ("dana", "acme"):
        shutil.rmtree(root / name, ignore_errors=True)
    yield root
    for name in ("dana", "acme"):
        shutil.rmtree(root / name, ignore_errors=True)


@pytest.fixture
def root_admin():
    return UserFactory(username="root", is_superuser=True, is_staff=True)


@pytest.fixture
def dana(git_root):
    return UserFactory(username="dana")


def make_repo(username: str, name: str) -> None:
    created = call("POST", "/api/v1/user/repos", username, {"name": name})
    assert created.status_code == 201, created.content


def harbor_delete(user) -> object:
    return call("DELETE", f"/api/v2.0/users/{user.pk}", "root")


def gitea_delete(username: str) -> object:
    return call("DELETE", f"/api/v1/admin/users/{username}", "root")


def assert_harbor_412(response, text: str):
    assert response.status_code == 412, response.content
    (error,) = response.json()["errors"]
    assert error["code"] == "PRECONDITION"
    assert text in error["message"]


def assert_gitea_422(response, text: str):
    assert response.status_code == 422, response.content
    assert text in response.json()["message"]
    assert response.json()["url"].endswith("/api/swagger")


def test_an_owner_of_repositories_is_refused_then_deleted_with_its_files(
    root_admin, dana, git_root, django_capture_on_commit_callbacks
):
    make_repo("dana", "tools")
    assert (git_root / "dana" / "tools.git").is_dir()
    assert_harbor_412(harbor_delete(dana), REPOS)
    assert_gitea_422(gitea_delete("dana"), REPOS)
    assert User.objects.filter(pk=dana.pk).exists()
    assert (git_root / "dana" / "tools.git").is_dir()

    assert call("DELETE", "/api/v1/repos/dana/tools", "dana").status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        assert harbor_delete(dana).status_code == 200
    assert not User.objects.filter(pk=dana.pk).exists()
    assert not (git_root / "dana").exists()
    # A new account of that name starts from nothing: the repository name is free.
    UserFactory(username="dana")
    make_repo("dana", "tools")


def test_a_stale_namespace_directory_goes_with_the_account(
    root_admin, dana, git_root, django_capture_on_commit_callbacks
):
    (git_root / "dana" / "old.git").mkdir(parents=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert gitea_delete("dana").status_code == 204
    assert not (git_root / "dana").exists()
    UserFactory(username="dana")
    make_repo("dana", "old")


def test_a_store_owner_is_refused_not_a_500(root_admin, dana):
    store = StoreFactory(owner=dana)
    assert_harbor_412(harbor_delete(dana), STORES)
    assert_gitea_422(gitea_delete("dana"), STORES)
    assert User.objects.filter(pk=dana.pk).exists()
    store.delete()
    assert gitea_delete("dana").status_code == 204
    assert not User.objects.filter(pk=dana.pk).exists()


def test_an_organization_member_is_refused(root_admin, dana):
    created = call("POST", "/api/v1/orgs", "dana", {"username": "acme"})
    assert created.status_code == 201, created.content
    assert_gitea_422(gitea_delete("dana"), ORGS)
    assert_harbor_412(harbor_delete(dana), ORGS)
    Owner.objects.filter(lower_name="acme").delete()  # no organization deletion API yet
    assert harbor_delete(dana).status_code == 200


def test_every_holding_is_named_at_once(root_admin, dana):
    make_repo("dana", "tools")
    StoreFactory(owner=dana)
    message = gitea_delete("dana").json()["message"]
    assert REPOS in message and STORES in message


def test_gitea_user_deletion_rules(root_admin, dana):
    assert gitea_delete("nobody").status_code == 404
    assert call("DELETE", "/api/v1/admin/users/root", "root").status_code == 422
    assert call("DELETE", "/api/v1/admin/users/root", "dana").status_code == 403
    call("POST", "/api/v1/orgs", "dana", {"username": "acme"})
    assert_gitea_422(gitea_delete("acme"), "acme is an organization not a user")


def admin_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_admin_site_follows_the_same_rule(
    root_admin, dana, git_root, django_capture_on_commit_callbacks
):
    make_repo("dana", "tools")
    StoreFactory(owner=dana)
    client = admin_client(root_admin)
    url = f"/admin/auth/user/{dana.pk}/delete/"
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "<title>Cannot delete user" in text
    assert REPOS in text and STORES in text
    assert client.post(url, {"post": "yes"}).status_code == 200  # the same refusal
    assert User.objects.filter(pk=dana.pk).exists()

    dana.stores.all().delete()
    assert call("DELETE", "/api/v1/repos/dana/tools", "dana").status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, {"post": "yes"}).status_code == 302
    assert not User.objects.filter(pk=dana.pk).exists()
    assert not (git_root / "dana").exists()


def test_the_admins_bulk_delete_refuses_owners(root_admin, dana):
    other = UserFactory(username="erin")
    make_repo("dana", "tools")
    response = admin_client(root_admin).post(
        "/admin/auth/user/",
        {"action": "delete_selected", "_selected_action": [dana.pk, other.pk], "post": "yes"},
    )
    assert response.status_code == 200
    assert REPOS in response.content.decode()
    assert User.objects.filter(pk__in=[dana.pk, other.pk]).count() == 2


def test_harbor_projects_stay_without_their_deleted_owner(root_admin, dana):
    created = call("POST", "/api/v2.0/projects", "dana", {"project_name": "danas"})
    assert created.status_code == 201, created.content
    assert harbor_delete(dana).status_code == 200
    project = call("GET", "/api/v2.0/projects/danas", "root")
    assert project.status_code == 200, project.content
    assert project.json()["name"] == "danas"
    assert call("GET", "/api/v2.0/projects?with_detail=true", "root").status_code == 200
