"""Integer parameters of the Harbor API (query, path, body) beyond int64 are bad input:
422 (or 400) in Harbor's error format, never a 500 nor a query the database overflows on.
The distribution API's `n` is 400 PAGINATION_NUMBER_INVALID."""

import base64

import pytest
from rest_framework.test import APIClient

from registry.models import Repository
from tests.registry.factories import PASSWORD, LabelFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

TOO_BIG = str(2**63)
TOO_SMALL = str(-(2**63) - 1)
HUGE = "9" * 40


@pytest.fixture
def admin_client():
    UserFactory(username="admin", is_superuser=True, is_staff=True)
    project = ProjectFactory(name="team")
    LabelFactory(name="l1")
    client = APIClient()
    token = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {token}")
    client.project = project
    return client


QUERY = [
    ("/api/v2.0/projects", "page"),
    ("/api/v2.0/projects", "page_size"),
    ("/api/v2.0/repositories", "page"),
    ("/api/v2.0/repositories", "page_size"),
    ("/api/v2.0/projects/team/repositories", "page"),
    ("/api/v2.0/projects/team/repositories", "page_size"),
    ("/api/v2.0/projects/team/repositories/app/artifacts", "page"),
    ("/api/v2.0/projects/team/repositories/app/artifacts", "page_size"),
    ("/api/v2.0/projects/team/members", "page"),
    ("/api/v2.0/projects/team/members", "page_size"),
    ("/api/v2.0/users", "page"),
    ("/api/v2.0/users", "page_size"),
    ("/api/v2.0/users/search", "page"),
    ("/api/v2.0/usergroups", "page"),
    ("/api/v2.0/labels", "page"),
    ("/api/v2.0/labels", "project_id"),
]
PATH = [
    "/api/v2.0/projects/team/members/{}",
    "/api/v2.0/users/{}",
    "/api/v2.0/usergroups/{}",
    "/api/v2.0/labels/{}",
]
BODY = [
    ("post", "/api/v2.0/projects", {"project_name": "other", "storage_limit": None}),
    ("put", "/api/v2.0/projects/team", {"storage_limit": None}),
    ("post", "/api/v2.0/labels", {"name": "x", "scope": "p", "project_id": None}),
    ("post", "/api/v2.0/projects/team/members", {"role_id": 1, "member_user": {"user_id": None}}),
    ("post", "/api/v2.0/projects/team/members", {"role_id": None, "member_user": {"user_id": 1}}),
]


def assert_harbor_bad_input(response):
    assert response.status_code in (400, 422), (response.status_code, response.content)
    (error,) = response.json()["errors"]
    assert error["code"] in ("BAD_REQUEST", "UNPROCESSABLE_ENTITY")


def fill(value, number):
    if isinstance(value, dict):
        return {key: fill(item, number) for key, item in value.items()}
    return number if value is None else value


@pytest.mark.parametrize("value", [TOO_BIG, TOO_SMALL, HUGE], ids=["above", "below", "huge"])
@pytest.mark.parametrize(("path", "name"), QUERY)
def test_query_integers_beyond_int64_are_refused(admin_client, path, name, value):
    extra = {"scope": "p"} if name == "project_id" else {}
    assert_harbor_bad_input(admin_client.get(path, {name: value, **extra}))


@pytest.mark.parametrize("value", [TOO_BIG, HUGE], ids=["above", "huge"])
@pytest.mark.parametrize("path", PATH)
def test_path_integers_beyond_int64_are_refused(admin_client, path, value):
    assert_harbor_bad_input(admin_client.get(path.format(value)))


@pytest.mark.parametrize("value", [TOO_BIG, HUGE], ids=["above", "huge"])
@pytest.mark.parametrize("path", ["/api/v2.0/projects/{}", "/api/v2.0/projects/{}/summary"])
def test_a_project_number_beyond_int64_is_a_name(admin_client, path, value):
    """Harbor takes `{project_name_or_id}` as an id only when it converts to an int64."""
    response = admin_client.get(path.format(value), headers={"X-Is-Resource-Name": "false"})
    assert response.status_code == 404
    assert response.json() == {
        "errors": [{"code": "NOT_FOUND", "message": f"project {value} not found"}]
    }


@pytest.mark.parametrize("value", [TOO_BIG, TOO_SMALL, HUGE], ids=["above", "below", "huge"])
def test_distribution_page_sizes_beyond_int64_are_refused(admin_client, value):
    response = admin_client.get("/v2/_catalog", {"n": value})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["code"] == "PAGINATION_NUMBER_INVALID"


@pytest.mark.parametrize("value", ["1_0", " 5", "\u0661"], ids=["underscore", "space", "arabic"])
def test_numbers_are_read_as_go_reads_them(admin_client, value):
    """Go's strconv reads an optional sign and ASCII digits, nothing else that Python's
    int() takes (underscores, white space, other scripts' digits)."""
    page = admin_client.get("/api/v2.0/projects", {"page": value})
    assert page.status_code == 422, page.content
    assert f'page in query must be of type int64: "{value}"' in page.json()["errors"][0]["message"]
    n = admin_client.get("/v2/_catalog", {"n": value})
    assert n.status_code == 400, n.content
    assert n.json()["errors"][0]["code"] == "PAGINATION_NUMBER_INVALID"


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**40], ids=["above", "below", "huge"])
@pytest.mark.parametrize(("method", "path", "body"), BODY)
def test_body_integers_beyond_int64_are_refused(admin_client, method, path, body, value):
    response = getattr(admin_client, method)(path, fill(body, value), format="json")
    assert_harbor_bad_input(response)


@pytest.mark.parametrize("path", ["/v2/_catalog", "/v2/team/app/tags/list"])
def test_a_page_start_no_name_can_hold_pages_on(admin_client, path):
    # A NUL cannot be in a repository or tag name (nor in PostgreSQL text): the page goes on
    # after the part before it, instead of a 500 from the database.
    Repository.objects.create(project=admin_client.project, name="team/app")
    Repository.objects.create(project=admin_client.project, name="team/b")
    response = admin_client.get(path, {"last": "team/a\x00z"})
    assert response.status_code == 200, response.content
    if path == "/v2/_catalog":
        assert response.json()["repositories"] == ["team/app", "team/b"]


@pytest.mark.parametrize(
    ("method", "path", "code"),
    [
        ("get", "/v2/team/app/manifests/a%00b", "MANIFEST_UNKNOWN"),
        ("head", "/v2/team/app/manifests/a%00b", None),
        ("delete", "/v2/team/app/manifests/a%00b", "MANIFEST_UNKNOWN"),
        ("get", f"/v2/team/app/referrers/sha256:{'0' * 64}?artifactType=a%00b", None),
    ],
    ids=["get", "head", "delete", "referrers"],
)
def test_a_reference_no_tag_can_hold_is_unknown(admin_client, method, path, code):
    Repository.objects.create(project=admin_client.project, name="team/app")
    response = getattr(admin_client, method)(path)
    assert response.status_code < 500, response.content
    if code:
        assert response.status_code == 404, response.content
        assert response.json()["errors"][0]["code"] == code


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/service/token?service=harbor-registry&scope=repository:te%00am/app:pull"),
        ("post", "/v2/team/app/blobs/uploads/?mount=sha256:" + "0" * 64 + "&from=te%00am/app"),
    ],
    ids=["token", "mount"],
)
def test_a_repository_name_no_project_can_hold_is_refused_cleanly(admin_client, method, path):
    Repository.objects.create(project=admin_client.project, name="team/app")
    response = getattr(admin_client, method)(path)
    assert response.status_code < 500, response.content


@pytest.mark.parametrize("username", ["robot$a\x00b", "a\x00b"], ids=["robot", "user"])
@pytest.mark.parametrize("path", ["/v2/", "/service/token?service=harbor-registry"])
def test_basic_credentials_no_account_can_hold_are_refused(username, path):
    client = APIClient()
    token = base64.b64encode(f"{username}:secret".encode()).decode()
    response = client.get(path, HTTP_AUTHORIZATION=f"Basic {token}")
    assert response.status_code == 401, response.content
