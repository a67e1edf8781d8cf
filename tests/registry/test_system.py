"""Configurations, search, statistics and health."""

import json

import pytest
from rest_framework.response import Response

from config.plain_json import PlainJSONRenderer, mark_plain
from registry import configuration
from registry.api.serializers.users import SEARCH_REPOSITORY
from registry.models import ArtifactReference, Project, Repository
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, push

pytestmark = pytest.mark.django_db


def test_configurations_need_an_admin(anon, alice_client, admin_client):
    assert anon.get("/api/v2.0/configurations").status_code == 401
    denied = alice_client.get("/api/v2.0/configurations")
    assert denied.status_code == 403
    assert denied.json()["errors"][0] == {"code": "FORBIDDEN", "message": "alice"}
    assert alice_client.put("/api/v2.0/configurations", {"read_only": True}).status_code == 403
    assert anon.get("/api/v2.0/internalconfig").status_code == 401
    assert alice_client.get("/api/v2.0/internalconfig").status_code == 403
    assert admin_client.get("/api/v2.0/internalconfig").status_code == 200


def test_configurations_shape_defaults_and_no_passwords(admin_client):
    admin_client.put(
        "/api/v2.0/configurations",
        {"ldap_search_password": "s3cret", "ldap_url": "ldap://ldap.example.com"},
    )
    data = admin_client.get("/api/v2.0/configurations").json()
    assert list(data) == sorted(data)
    assert data["auth_mode"] == {"editable": True, "value": "db_auth"}
    assert data["ldap_scope"] == {"editable": True, "value": 2}
    assert data["ldap_uid"]["value"] == "cn"
    assert data["self_registration"] == {"editable": True, "value": False}
    assert data["storage_per_project"]["value"] == -1
    assert data["ldap_url"]["value"] == "ldap://ldap.example.com"
    assert "ldap_search_password" not in data and "oidc_client_secret" not in data
    internal = admin_client.get("/api/v2.0/internalconfig")
    assert b"s3cret" not in internal.content
    assert configuration.get("ldap_search_password") == "s3cret"


@pytest.mark.parametrize(
    "body",
    [
        {"auth_mode": "magic"},
        {"ldap_scope": 7},
        {"project_creation_restriction": "nobody"},
        {"token_expiration": 0},
        {"storage_per_project": -2},
        {"ldap_url": ""},
    ],
)
def test_configuration_validation_is_400_and_stores_nothing(admin_client, body):
    response = admin_client.put("/api/v2.0/configurations", body)
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "BAD_REQUEST"
    key = next(iter(body))
    assert configuration.get(key) == configuration.ITEMS[key].default


@pytest.mark.parametrize("body", [{"read_only": "yes"}, {"ldap_timeout": "5"}])
def test_configuration_of_the_wrong_json_type_is_422_and_stores_nothing(admin_client, body):
    # Harbor binds the body to its typed Configurations model: a type error never reaches
    # the handler's 400 checks.
    response = admin_client.put("/api/v2.0/configurations", body)
    assert response.status_code == 422
    assert response.json()["errors"][0]["code"] == "UNPROCESSABLE_ENTITY"
    key = next(iter(body))
    assert configuration.get(key) == configuration.ITEMS[key].default


def test_configuration_subset_update_and_unknown_keys(admin_client):
    response = admin_client.put(
        "/api/v2.0/configurations", {"ldap_scope": 1, "no_such_key": 5, "read_only": True}
    )
    assert response.status_code == 200 and response.content == b""
    data = admin_client.get("/api/v2.0/configurations").json()
    assert data["ldap_scope"]["value"] == 1 and data["read_only"]["value"] is True
    assert "no_such_key" not in data
    assert admin_client.put("/api/v2.0/configurations", [1], format="json").status_code == 422


def test_a_lost_cache_version_never_brings_back_older_values():
    """The file cache culls a third of its entries when full, and Redis may evict: the
    version key can go while older value slots stay. A counter restarted at 1 then served
    the values cached under version 1 again (for up to an hour); a version is never reused."""
    from django.core.cache import cache

    cache.delete(configuration.VERSION_KEY)  # as a fresh cache: the first version
    configuration.values()  # cached under it
    configuration.update({"robot_token_duration": 7})
    assert configuration.get("robot_token_duration") == 7
    cache.delete(configuration.VERSION_KEY)
    assert configuration.get("robot_token_duration") == 7


def test_auth_mode_locked_once_users_exist(admin_client):
    assert (
        admin_client.put("/api/v2.0/configurations", {"auth_mode": "ldap_auth"}).status_code == 200
    )
    UserFactory()
    assert admin_client.get("/api/v2.0/configurations").json()["auth_mode"]["editable"] is False
    response = admin_client.put("/api/v2.0/configurations", {"auth_mode": "db_auth"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "the auth mode cannot be modified as new users have been inserted into database"
    )


def test_search_projects_and_repositories(anon, alice, alice_client):
    public = ProjectFactory(name="library", owner=alice, public=True)
    private = ProjectFactory(name="libsecret", owner=alice)
    push(public, "nginx")
    push(private, "redis")
    data = anon.get("/api/v2.0/search?q=lib").json()
    assert [p["name"] for p in data["project"]] == ["library"]
    assert data["repository"] == [
        {
            "artifact_count": 1,
            "project_id": public.pk,
            "project_name": "library",
            "project_public": True,
            "repository_name": "library/nginx",
        }
    ]
    mine = alice_client.get("/api/v2.0/search?q=lib").json()
    assert [p["name"] for p in mine["project"]] == ["library", "libsecret"]
    assert "owner_name" not in mine["project"][0]
    assert [r["repository_name"] for r in mine["repository"]] == [
        "library/nginx",
        "libsecret/redis",
    ]
    # Project names match case-sensitively, repository names case-insensitively (as Harbor).
    upper = anon.get("/api/v2.0/search?q=LIB").json()
    assert upper["project"] == []
    assert [r["repository_name"] for r in upper["repository"]] == ["library/nginx"]
    assert anon.get("/api/v2.0/search").status_code == 422


def test_search_repository_counts_harbors_default_artifacts_and_leaves_zeros_out(anon, alice):
    """An index's untagged child is not one of Harbor's default artifacts (a tagged one
    is); a repository without any, and one never pulled, leave those keys out."""
    project = ProjectFactory(name="counted", owner=alice, public=True)
    index = push(project, "multi", tag="v1")
    tagged, untagged = push(project, "multi", tag="amd64"), push(project, "multi", tag=None)
    for child in (tagged, untagged):
        ArtifactReference.objects.create(parent=index, child=child, child_digest=child.digest)
    Repository.objects.filter(name="counted/multi").update(pull_count=7)
    push(project, "plain", tag=None)
    untagged_only = push(project, "orphans", tag=None)
    ArtifactReference.objects.create(
        parent=index, child=untagged_only, child_digest=untagged_only.digest
    )
    found = {
        r["repository_name"]: r for r in anon.get("/api/v2.0/search?q=count").json()["repository"]
    }
    common = {"project_id": project.pk, "project_name": "counted", "project_public": True}
    assert found == {
        "counted/multi": {
            "artifact_count": 2,
            "pull_count": 7,
            **common,
            "repository_name": "counted/multi",
        },
        "counted/orphans": {**common, "repository_name": "counted/orphans"},
        "counted/plain": {"artifact_count": 1, **common, "repository_name": "counted/plain"},
    }


# Names the distribution's grammar refuses, but the ORM or the admin could store: the
# database must escape them as orjson does.
WIRE_NAMES = [
    'wire/q"uote\\back/slash',
    "wire/ctl\x01\x1f\x7f\n\t\r\x08\x0c",
    "wire/naïve-ünïcode-日本",
    "wire/line\u2028para\u2029",
]


@pytest.mark.parametrize("artifacts", [0, 3])
@pytest.mark.parametrize("pulls", [0, 9])
@pytest.mark.parametrize("public", [False, True])
def test_search_rows_written_by_the_database_are_the_records_bytes(
    admin_client, alice, artifacts, pulls, public
):
    project = ProjectFactory(name="wire", owner=alice, public=public)
    for name in WIRE_NAMES:
        for n in range(artifacts):
            push(project, name, tag=f"v{n}")
        Repository.objects.update_or_create(
            project=project, name=name, defaults={"pull_count": pulls}
        )
    Project.objects.filter(pk=project.pk).update(name='wi"re\u2028')
    response = admin_client.get("/api/v2.0/search", {"q": "wire/"})
    assert response.status_code == 200
    rows = [
        {
            "project_id": project.pk,
            "project_name": 'wi"re\u2028',
            "project_public": public,
            "name": name,
            "pull_count": pulls,
            "artifact_count": artifacts,
        }
        for name in sorted(WIRE_NAMES)
    ]
    expected = {"project": [], "repository": [SEARCH_REPOSITORY.render(row) for row in rows]}
    marked = mark_plain(Response())
    assert response.content == PlainJSONRenderer().render(expected, None, {"response": marked})
    # The Python way of the same body (an indent asked for) decodes the database's text.
    indented = admin_client.get(
        "/api/v2.0/search", {"q": "wire/"}, HTTP_ACCEPT="application/json; indent=2"
    )
    assert indented.json() == response.json() == json.loads(json.dumps(expected))


def test_statistics_for_admin_and_member(anon, alice, bob, bob_client, admin_client):
    public = ProjectFactory(name="pub", owner=alice, public=True)
    private = ProjectFactory(name="priv", owner=alice)
    ProjectFactory(name="hidden", owner=alice)
    push(public, "a", size=10)
    push(private, "b", size=20)
    push(private, "c", size=30)
    MemberFactory(project=private, user=bob, role=3)
    assert anon.get("/api/v2.0/statistics").status_code == 401
    assert admin_client.get("/api/v2.0/statistics").json() == {
        "private_project_count": 2,
        "private_repo_count": 2,
        "public_project_count": 1,
        "public_repo_count": 1,
        "total_project_count": 3,
        "total_repo_count": 3,
        "total_storage_consumption": 60,
    }
    assert bob_client.get("/api/v2.0/statistics").json() == {
        "private_project_count": 1,
        "private_repo_count": 2,
        "public_project_count": 1,
        "public_repo_count": 1,
        "total_project_count": 0,
        "total_repo_count": 0,
        "total_storage_consumption": 0,
    }


def test_unknown_path_and_method(anon):
    response = anon.get("/api/v2.0/nothing/here")
    assert response.status_code == 404
    assert response.json() == {
        "errors": [{"code": "NOT_FOUND", "message": "path /api/v2.0/nothing/here was not found"}]
    }
    assert anon.patch("/api/v2.0/projects", {}).json()["errors"][0]["code"] == (
        "METHOD_NOT_ALLOWED"
    )
