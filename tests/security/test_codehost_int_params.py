"""Integer parameters of the Gitea API beyond int64 are bad input: 422 in Gitea's error
format, never a 500 nor a query the database overflows on."""

import pytest

from tests.security.codehost_support import api, basic, owner

pytestmark = pytest.mark.django_db

TOO_BIG = str(2**63)
TOO_SMALL = str(-(2**63) - 1)
# Past Python's 4300-digit bound for int(): a ValueError (a 500) before config.limits.go_int
# answered such a number out of range.
THOUSANDS_OF_DIGITS = "9" * 5000

QUERY_PARAMETERS = [
    ("/api/v1/repos/search", "uid"),
    ("/api/v1/repos/search", "starredBy"),
    ("/api/v1/repos/search", "team_id"),
    ("/api/v1/repos/search", "priority_owner_id"),
    ("/api/v1/repos/search", "page"),
    ("/api/v1/repos/search", "limit"),
    ("/api/v1/user/repos", "page"),
    ("/api/v1/orgs", "limit"),
]
PATH_PARAMETERS = [
    "/api/v1/repositories/{}",
    "/api/v1/teams/{}",
    "/api/v1/teams/{}/members",
    "/api/v1/teams/{}/repos",
    "/api/v1/teams/{}/activities/feeds",
]


def assert_gitea_422(response, name):
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/json;charset=utf-8"
    body = response.json()
    assert body["message"] == f"[{name}]: value out of range"
    assert body["url"].endswith("/api/swagger")


@pytest.mark.parametrize(
    "value", [TOO_BIG, TOO_SMALL, THOUSANDS_OF_DIGITS], ids=["above", "below", "digits"]
)
@pytest.mark.parametrize(("path", "name"), QUERY_PARAMETERS)
def test_query_integers_out_of_int64_are_422(path, name, value):
    owner("alice")
    response = api(basic("alice")).get(path, {name: value})
    assert_gitea_422(response, name)


@pytest.mark.parametrize("path", PATH_PARAMETERS)
def test_path_integers_out_of_int64_are_422(path):
    owner("alice")
    response = api(basic("alice")).get(path.format(TOO_BIG))
    assert_gitea_422(response, "id")


def test_the_largest_int64_is_an_ordinary_value():
    owner("alice")
    client = api(basic("alice"))
    found = client.get("/api/v1/repos/search", {"uid": str(2**63 - 1)})
    assert found.status_code == 200
    assert found.json() == {"ok": True, "data": []}
    assert client.get(f"/api/v1/repositories/{2**63 - 1}").status_code == 404


def test_body_integers_out_of_int64_are_422():
    alice = owner("alice")
    alice.user.is_superuser = True
    alice.user.save()
    response = api(basic("alice")).post(
        "/api/v1/repos/migrate",
        {"clone_addr": "https://example.com/x.git", "repo_name": "x", "uid": 2**63},
        format="json",
    )
    assert response.status_code == 422, response.content
    assert response.json()["message"].startswith("[RepoOwnerID]")
