"""Tags of an artifact through Harbor's API: listing, creating, deleting; who may, and what
bad names, races and vanished projects answer."""

import threading

import pytest
from django.db import connection

from registry.models import AuditLog, Project, Repository, Role, Tag
from registry.services import tags
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, push
from tests.registry.test_robots import project_robot, robot_client

pytestmark = pytest.mark.django_db

BASE = "/api/v2.0/projects/app/repositories/team%252Fweb/artifacts"


@pytest.fixture
def project(alice):
    return ProjectFactory(name="app", owner=alice)


@pytest.fixture
def image(project):
    return push(project, "team/web", tag="v1")


def member(project, role):
    user = UserFactory()
    MemberFactory(project=project, user=user, role=role)
    return client_for(user)


def tag_names(client, reference, **params):
    response = client.get(f"{BASE}/{reference}/tags", params)
    assert response.status_code == 200, response.content
    return [tag["name"] for tag in response.json()]


def test_create_list_delete(alice_client, image):
    before = Repository.objects.get(name="app/team/web").update_time
    created = alice_client.post(f"{BASE}/v1/tags", {"name": "stable"}, format="json")
    assert created.status_code == 201 and created.content == b""
    assert "Location" not in created  # Harbor serves no single tag to point at
    assert tag_names(alice_client, image.digest) == ["stable", "v1"]
    assert Repository.objects.get(name="app/team/web").update_time > before
    # The new tag names the artifact everywhere a reference is taken.
    fetched = alice_client.get(f"{BASE}/stable")
    assert fetched.status_code == 200 and fetched.json()["digest"] == image.digest

    listing = alice_client.get(f"{BASE}/v1/tags")
    record = listing.json()[0]
    assert set(record) == {
        "id",
        "repository_id",
        "artifact_id",
        "name",
        "push_time",
        "pull_time",
        "immutable",
    }
    assert record["artifact_id"] == image.pk and record["immutable"] is False
    assert record["pull_time"] == "0001-01-01T00:00:00.000Z"

    assert alice_client.delete(f"{BASE}/v1/tags/stable").status_code == 200
    assert tag_names(alice_client, "v1") == ["v1"]
    # The last tag may go: the artifact stays, untagged, reachable by digest.
    assert alice_client.delete(f"{BASE}/{image.digest}/tags/v1").status_code == 200
    assert tag_names(alice_client, image.digest) == []
    assert alice_client.get(f"{BASE}/v1").status_code == 404

    logs = AuditLog.objects.filter(resource_type="tag").order_by("pk")
    assert [(log.operation, log.resource, log.username) for log in logs] == [
        ("create", "app/team/web:stable", "alice"),
        ("delete", "app/team/web:stable", "alice"),
        ("delete", "app/team/web:v1", "alice"),
    ]


def test_list_paging_q_sort_and_query_count(
    alice_client, project, image, django_assert_max_num_queries
):
    for n in range(12):
        tags.create_tag(project, image, f"t{n:02d}")
    alice_client.get(f"{BASE}/v1/tags")  # the process's caches filled
    with django_assert_max_num_queries(9):
        page = alice_client.get(f"{BASE}/v1/tags", {"page": 2, "page_size": 5, "sort": "name"})
    assert page["X-Total-Count"] == "13"
    assert [t["name"] for t in page.json()] == ["t05", "t06", "t07", "t08", "t09"]
    assert page["Link"] == (
        f'<{BASE}/v1/tags?page=1&page_size=5&sort=name>; rel="prev" , '
        f'<{BASE}/v1/tags?page=3&page_size=5&sort=name>; rel="next"'
    ).replace("%252F", "%2F")
    with django_assert_max_num_queries(9):
        everything = alice_client.get(f"{BASE}/v1/tags", {"page_size": 100})
    assert len(everything.json()) == 13
    assert tag_names(alice_client, "v1", q="name=~t1") == ["t11", "t10"]
    assert tag_names(alice_client, "v1", q="name=v1", with_immutable_status="true") == ["v1"]
    bad = alice_client.get(f"{BASE}/v1/tags", {"with_immutable_status": "maybe"})
    assert bad.status_code == 422
    assert alice_client.get(f"{BASE}/v1/tags", {"page_size": 101}).status_code == 422


def test_tags_of_one_artifact_only(alice_client, project, image):
    other = push(project, "team/web", tag="v2", seed="other")
    assert tag_names(alice_client, other.digest) == ["v2"]
    assert tag_names(alice_client, "v1") == ["v1"]
    # A tag on another artifact is not this artifact's: 404, and it stays.
    gone = alice_client.delete(f"{BASE}/v1/tags/v2")
    assert gone.status_code == 404
    assert gone.json() == {
        "errors": [
            {"code": "NOT_FOUND", "message": f"tag v2 attached to artifact {image.pk} not found"}
        ]
    }
    assert Tag.objects.filter(name="v2", artifact=other).exists()
    assert alice_client.get(f"{BASE}/sha256:{'0' * 64}/tags").status_code == 404
    assert alice_client.get(f"{BASE}/nope/tags").status_code == 404


def test_existing_tag_name_conflicts(alice_client, project, image):
    other = push(project, "team/web", tag="v2", seed="other")
    # Harbor never moves a tag through this endpoint: the name is taken in the repository.
    for reference in ("v1", other.digest):
        taken = alice_client.post(f"{BASE}/{reference}/tags", {"name": "v2"}, format="json")
        assert taken.status_code == 409
        assert taken.json()["errors"][0] == {
            "code": "CONFLICT",
            "message": f"tag v2 already exists under the repository {image.repository_id}",
        }
    assert Tag.objects.get(name="v2").artifact == other
    # The same name in another repository is another tag.
    push(project, "other", tag="x")
    assert alice_client.post(f"{BASE}/v1/tags", {"name": "x"}, format="json").status_code == 201


@pytest.mark.parametrize(
    "name",
    ["a/b", "..", ".hidden", "-dash", " v1", "v1\n", "v\x01", "v\u00e9", "a" * 129, "a:b"],
)
def test_invalid_tag_names_are_400(alice_client, image, name):
    response = alice_client.post(f"{BASE}/v1/tags", {"name": name}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["code"] == "BAD_REQUEST"
    assert list(Tag.objects.values_list("name", flat=True)) == ["v1"]


def test_longest_tag_name_and_body_shape(alice_client, image):
    longest = "a" * 128
    assert alice_client.post(f"{BASE}/v1/tags", {"name": longest}, format="json").status_code == 201
    assert alice_client.delete(f"{BASE}/v1/tags/{longest}").status_code == 200
    for body in ({}, {"name": 5}, {"name": None}, ["v2"]):
        response = alice_client.post(f"{BASE}/v1/tags", body, format="json")
        assert response.status_code == 422, (body, response.content)
    # An empty name is a missing one to go-swagger (a required, non-nullable string).
    empty = alice_client.post(f"{BASE}/v1/tags", {"name": ""}, format="json")
    assert empty.json()["errors"][0] == {
        "code": "UNPROCESSABLE_ENTITY",
        "message": "validation failure list:\nvalidation failure list:\nname in body is required",
    }
    nul = alice_client.post(
        f"{BASE}/v1/tags", b'{"name": "v\\u0000"}', content_type="application/json"
    )
    assert nul.status_code == 400
    assert list(Tag.objects.values_list("name", flat=True)) == ["v1"]


def test_tag_name_with_slash_in_delete_path_deletes_nothing(alice_client, project, image):
    tags.create_tag(project, image, "keep")
    for path in ("a%2Fb", "a%252Fb", "..", "%2E%2E"):
        response = alice_client.delete(f"{BASE}/v1/tags/{path}")
        assert response.status_code in (404, 405), (path, response.status_code)
    assert sorted(Tag.objects.values_list("name", flat=True)) == ["keep", "v1"]
    assert Repository.objects.filter(name="app/team/web").exists()


def test_role_matrix(project, image, anon, bob_client):
    guest = member(project, Role.GUEST)
    limited = member(project, Role.LIMITED_GUEST)
    developer = member(project, Role.DEVELOPER)
    maintainer = member(project, Role.MAINTAINER)
    # Private project: anonymous 401, a non-member 403, before any existence check.
    for client, status in ((anon, 401), (bob_client, 403)):
        assert client.get(f"{BASE}/v1/tags").status_code == status
        assert client.post(f"{BASE}/v1/tags", {"name": "x"}, format="json").status_code == status
        assert client.delete(f"{BASE}/v1/tags/v1").status_code == status
        assert client.get(f"{BASE}/nope/tags").status_code == status
    for client in (guest, limited):
        assert tag_names(client, "v1") == ["v1"]
        assert client.post(f"{BASE}/v1/tags", {"name": "x"}, format="json").status_code == 403
        assert client.delete(f"{BASE}/v1/tags/v1").status_code == 403
    assert developer.post(f"{BASE}/v1/tags", {"name": "dev"}, format="json").status_code == 201
    # A developer tags but does not untag (Harbor's developer role).
    assert developer.delete(f"{BASE}/v1/tags/dev").status_code == 403
    assert maintainer.delete(f"{BASE}/v1/tags/dev").status_code == 200
    assert sorted(Tag.objects.values_list("name", flat=True)) == ["v1"]


def test_other_project_member_cannot_reach_tags(project, image):
    other = ProjectFactory(name="other")
    outsider = member(other, Role.PROJECT_ADMIN)
    assert outsider.get(f"{BASE}/v1/tags").status_code == 403
    assert outsider.post(f"{BASE}/v1/tags", {"name": "x"}, format="json").status_code == 403
    assert outsider.delete(f"{BASE}/v1/tags/v1").status_code == 403
    assert list(Tag.objects.values_list("name", flat=True)) == ["v1"]


def test_public_project_anonymous_lists_only(anon, alice):
    public = ProjectFactory(name="pub", owner=alice, public=True)
    push(public, "web", tag="v1")
    url = "/api/v2.0/projects/pub/repositories/web/artifacts/v1/tags"
    assert [t["name"] for t in anon.get(url).json()] == ["v1"]
    assert anon.post(url, {"name": "x"}, format="json").status_code == 401
    assert anon.delete(url + "/v1").status_code == 401


def test_robot_permissions(project, image, admin_client):
    def robot(name, *access):
        body = project_robot(name=name, project="app", access=access)
        created = admin_client.post("/api/v2.0/robots", body, format="json")
        assert created.status_code == 201, created.content
        return robot_client(created.json())

    puller = robot("puller", ("repository", "pull"))
    assert puller.get(f"{BASE}/v1/tags").status_code == 403
    assert puller.post(f"{BASE}/v1/tags", {"name": "x"}, format="json").status_code == 403
    assert puller.delete(f"{BASE}/v1/tags/v1").status_code == 403
    tagger = robot("tagger", ("tag", "create"), ("tag", "list"))
    assert tagger.post(f"{BASE}/v1/tags", {"name": "x"}, format="json").status_code == 201
    assert tag_names(tagger, "v1") == ["x", "v1"]
    assert tagger.delete(f"{BASE}/v1/tags/x").status_code == 403
    untagger = robot("untagger", ("tag", "delete"))
    assert untagger.delete(f"{BASE}/v1/tags/x").status_code == 200
    log = AuditLog.objects.get(operation="delete", resource_type="tag")
    assert log.username.endswith("untagger")


def test_tag_on_deleted_project_is_not_found(project, image):
    # The caller read the artifact, then the project went (its rows with it).
    project.delete()
    with pytest.raises(tags.NotFound):
        tags.create_tag(project, image, "late")
    assert not Tag.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_racing_creates_one_tag(alice, project, image):
    """Two requests for the same new tag at once: one 201, one 409, one row."""
    statuses = []
    barrier = threading.Barrier(2)

    def create():
        client = client_for(alice)
        barrier.wait()
        try:
            response = client.post(f"{BASE}/v1/tags", {"name": "race"}, format="json")
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201, 409]
    assert Tag.objects.filter(name="race").count() == 1


def test_tagging_an_index_child_counts_it_as_harbor_does(alice_client, project):
    child = push(project, "team/web", tag=None, seed="child")
    push(
        project,
        "team/web",
        tag="multi",
        seed="index",
        media_type="application/vnd.oci.image.index.v1+json",
        manifest_media_type="application/vnd.oci.image.index.v1+json",
        references=[{"digest": child.digest, "platform": {"os": "linux"}}],
    )
    repository = "/api/v2.0/projects/app/repositories/team%252Fweb"

    def counts():
        count = alice_client.get(repository).json()["artifact_count"]
        listed = alice_client.get(f"{BASE}").json()
        return count, len(listed)

    # An untagged child of an index is outside Harbor's default set; tagged, it is in it.
    assert counts() == (1, 1)
    tagged = alice_client.post(f"{BASE}/{child.digest}/tags", {"name": "amd64"}, format="json")
    assert tagged.status_code == 201
    assert counts() == (2, 2)
    assert alice_client.delete(f"{BASE}/amd64/tags/amd64").status_code == 200
    assert counts() == (1, 1)


def test_no_tag_is_made_in_a_proxy_cache_project(alice_client, project, image):
    Project.objects.filter(pk=project.pk).update(registry_id=1)
    refused = alice_client.post(f"{BASE}/v1/tags", {"name": "mine"}, format="json")
    assert refused.status_code == 405
    assert refused.json()["errors"][0] == {
        "code": "METHOD_NOT_ALLOWED",
        "message": "the operation isn't supported for a proxy cache project",
    }
    assert list(Tag.objects.values_list("name", flat=True)) == ["v1"]
