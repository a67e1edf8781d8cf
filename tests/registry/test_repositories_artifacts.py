"""Repositories, artifacts (the q language, sort, flags, shape) and labels on artifacts."""

import pytest

from registry.models import Artifact, Repository
from tests.registry.conftest import client_for
from tests.registry.factories import LabelFactory, MemberFactory, ProjectFactory, UserFactory, push

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(alice):
    return ProjectFactory(name="app", owner=alice)


def test_repository_list_get_update_delete(alice_client, project):
    push(project, "nginx", tag="v1")
    push(project, "team/web/api", tag="v1")
    listing = alice_client.get("/api/v2.0/projects/app/repositories")
    assert listing["X-Total-Count"] == "2"
    names = [r["name"] for r in listing.json()]
    assert names == ["app/team/web/api", "app/nginx"]
    item = alice_client.get("/api/v2.0/projects/app/repositories/team%252Fweb%252Fapi").json()
    assert item["name"] == "app/team/web/api"
    assert item["artifact_count"] == 1 and item["pull_count"] == 0
    assert "description" not in item
    assert list(item) == sorted(item)
    single = alice_client.get("/api/v2.0/projects/app/repositories/team%2Fweb%2Fapi")
    assert single.status_code == 200
    update = alice_client.put(
        "/api/v2.0/projects/app/repositories/nginx", {"description": "<b>web</b>"}
    )
    assert update.status_code == 200
    assert Repository.objects.get(name="app/nginx").description == "&lt;b&gt;web&lt;/b&gt;"
    missing = alice_client.get("/api/v2.0/projects/app/repositories/nope")
    assert missing.status_code == 404
    assert missing.json()["errors"][0]["message"] == "repository app/nope not found"
    assert alice_client.delete("/api/v2.0/projects/app/repositories/nginx").status_code == 200
    assert not Artifact.objects.filter(repository__name="app/nginx").exists()
    assert alice_client.get("/api/v2.0/projects/app").json()["repo_count"] == 1


def test_repository_q_and_sort(alice_client, project):
    push(project, "alpha")
    push(project, "beta")
    push(project, "gamma")
    fuzzy = alice_client.get("/api/v2.0/projects/app/repositories?q=name%3D~ta").json()
    assert [r["name"] for r in fuzzy] == ["app/beta"]
    ordered = alice_client.get("/api/v2.0/projects/app/repositories?sort=name").json()
    assert [r["name"] for r in ordered] == ["app/alpha", "app/beta", "app/gamma"]


def test_all_repositories_follow_visibility(anon, alice, bob_client, admin_client):
    public = ProjectFactory(name="pub", owner=alice, public=True)
    private = ProjectFactory(name="priv", owner=alice)
    push(public, "one")
    push(private, "two")
    assert [r["name"] for r in anon.get("/api/v2.0/repositories").json()] == ["pub/one"]
    assert [r["name"] for r in bob_client.get("/api/v2.0/repositories").json()] == ["pub/one"]
    assert admin_client.get("/api/v2.0/repositories")["X-Total-Count"] == "2"


def test_repository_role_matrix(project, bob, anon):
    push(project, "img")
    url = "/api/v2.0/projects/app/repositories/img"
    assert anon.get(url).status_code == 401
    assert client_for(bob).get(url).status_code == 403
    MemberFactory(project=project, user=bob, role=3)
    guest = client_for(bob)
    assert guest.get(url).status_code == 200
    assert guest.put(url, {"description": "x"}).status_code == 403
    developer = UserFactory()
    MemberFactory(project=project, user=developer, role=2)
    assert client_for(developer).put(url, {"description": "x"}).status_code == 200
    assert client_for(developer).delete(url).status_code == 403
    limited = UserFactory()
    MemberFactory(project=project, user=limited, role=5)
    assert client_for(limited).get(url).status_code == 200


def test_artifact_shape(alice_client, project):
    artifact = push(project, "userlist", tag="v1", size=280958537)
    data = alice_client.get("/api/v2.0/projects/app/repositories/userlist/artifacts").json()
    assert len(data) == 1
    item = data[0]
    assert list(item) == sorted(item)
    assert item["digest"] == artifact.digest
    assert item["type"] == "IMAGE"
    assert item["icon"] == (
        "sha256:0048162a053eef4d4ce3fe7518615bef084403614f8bca43b40ae2e762e11e06"
    )
    assert item["repository_name"] == "app/userlist"
    assert item["size"] == 280958537
    assert item["labels"] is None and item["references"] is None
    assert item["accessories"] is None
    assert item["pull_time"] == "0001-01-01T00:00:00.000Z"
    assert item["extra_attrs"] == {"architecture": "amd64", "os": "linux"}
    assert item["addition_links"] == {
        "build_history": {
            "absolute": False,
            "href": f"/api/v2.0/projects/app/repositories/userlist/artifacts/{artifact.digest}"
            "/additions/build_history",
        }
    }
    (tag,) = item["tags"]
    assert tag == {
        "artifact_id": artifact.pk,
        "id": tag["id"],
        "immutable": False,
        "name": "v1",
        "pull_time": "0001-01-01T00:00:00.000Z",
        "push_time": tag["push_time"],
        "repository_id": artifact.repository_id,
    }
    assert "scan_overview" not in item and "annotations" not in item


def test_artifact_q_language(alice_client, project):
    push(project, "r", tag="v1.0", seed="a")
    push(project, "r", tag="v2.0", seed="b")
    push(project, "r", tag=None, seed="c")
    push(project, "r", tag="Latest", seed="d")
    url = "/api/v2.0/projects/app/repositories/r/artifacts"

    def tags(query):
        response = alice_client.get(url + query)
        assert response.status_code == 200, response.content
        return sorted(",".join(t["name"] for t in a["tags"] or []) or "-" for a in response.json())

    assert tags("") == ["-", "Latest", "v1.0", "v2.0"]
    assert tags("?q=tags%3D*") == ["Latest", "v1.0", "v2.0"]
    assert tags("?q=tags%3Dnil") == ["-"]
    assert tags("?q=tags%3Dv1.0") == ["v1.0"]
    assert tags("?q=tags%3D~v") == ["v1.0", "v2.0"]
    assert tags("?q=tags%3D~latest") == []
    assert tags("?q=tags%253Dnil") == ["-"]
    assert alice_client.get(url + "?q=tags%3D%5Ba~b%5D").status_code == 400
    assert tags("?with_tag=false") == ["-", "-", "-", "-"]


def test_artifact_labels_filter_and_with_label(alice_client, project):
    one = push(project, "r", tag="a", seed="1")
    two = push(project, "r", tag="b", seed="2")
    red, blue = LabelFactory(name="red"), LabelFactory(name="blue")
    base = "/api/v2.0/projects/app/repositories/r/artifacts"
    assert alice_client.post(f"{base}/{one.digest}/labels", {"id": red.pk}).status_code == 200
    assert alice_client.post(f"{base}/a/labels", {"id": blue.pk}).status_code == 200
    assert alice_client.post(f"{base}/b/labels", {"id": red.pk}).status_code == 200
    assert alice_client.post(f"{base}/b/labels", {"id": red.pk}).status_code == 409
    both = alice_client.get(f"{base}?q=labels%3D%28{red.pk}+{blue.pk}%29&with_label=true").json()
    assert [a["digest"] for a in both] == [one.digest]
    assert sorted(label["name"] for label in both[0]["labels"]) == ["blue", "red"]
    red_only = alice_client.get(f"{base}?q=labels%3D%28{red.pk}%29").json()
    assert {a["digest"] for a in red_only} == {one.digest, two.digest}
    assert alice_client.get(f"{base}?q=labels%3D{red.pk}").status_code == 400
    # Past int64 Harbor's q parser keeps a string, which is no label id (was a 500).
    huge = alice_client.get(f"{base}?q=labels%3D%28{red.pk}+{'9' * 20}%29")
    assert huge.status_code == 400
    assert huge.json()["errors"][0]["message"] == "only support the AND list of integers for labels"
    assert alice_client.delete(f"{base}/b/labels/{red.pk}").status_code == 200
    assert alice_client.delete(f"{base}/b/labels/{red.pk}").status_code == 404


def test_artifact_range_sort_paging_and_missing_repo(alice_client, project):
    for n in range(5):
        push(project, "r", tag=f"t{n}", seed=f"s{n}", size=100 * (n + 1))
    url = "/api/v2.0/projects/app/repositories/r/artifacts"
    sized = alice_client.get(url + "?q=size%3D%5B200~400%5D&sort=size").json()
    assert [a["size"] for a in sized] == [200, 300, 400]
    desc = alice_client.get(url + "?sort=-size&page_size=2&page=2")
    assert [a["size"] for a in desc.json()] == [300, 200]
    assert desc["X-Total-Count"] == "5"
    default = alice_client.get(url).json()
    assert [a["tags"][0]["name"] for a in default] == ["t4", "t3", "t2", "t1", "t0"]
    empty = alice_client.get("/api/v2.0/projects/app/repositories/ghost/artifacts")
    assert empty.status_code == 200 and empty.json() == []
    assert alice_client.get(url + "?with_label=perhaps").status_code == 422


def test_index_children_hidden_unless_base_star(alice_client, project):
    child = push(project, "multi", tag=None, seed="child")
    push(
        project,
        "multi",
        tag="latest",
        seed="index",
        media_type="application/vnd.oci.image.index.v1+json",
        manifest_media_type="application/vnd.oci.image.index.v1+json",
        references=[{"digest": child.digest, "platform": {"architecture": "arm64", "os": "linux"}}],
    )
    url = "/api/v2.0/projects/app/repositories/multi/artifacts"
    listing = alice_client.get(url).json()
    assert len(listing) == 1
    (reference,) = listing[0]["references"]
    assert reference["child_digest"] == child.digest
    assert reference["platform"] == {"architecture": "arm64", "os": "linux"}
    assert len(alice_client.get(url + "?q=base%3D*").json()) == 2
    repo = alice_client.get("/api/v2.0/projects/app/repositories/multi").json()
    assert repo["artifact_count"] == 1


def test_public_project_artifacts_for_anonymous(anon, alice):
    project = ProjectFactory(name="open", owner=alice, public=True)
    push(project, "img")
    assert anon.get("/api/v2.0/projects/open/repositories").status_code == 200
    response = anon.get("/api/v2.0/projects/open/repositories/img/artifacts")
    assert response.status_code == 200 and len(response.json()) == 1
    private = ProjectFactory(name="closed", owner=alice)
    push(private, "img")
    assert anon.get("/api/v2.0/projects/closed/repositories/img/artifacts").status_code == 401


def test_public_project_repository_for_anyone(anon, alice, bob_client):
    """Harbor's getRepository asks for repository:list, which a public project grants to
    anyone (not repository:read, which it does not)."""
    project = ProjectFactory(name="open", owner=alice, public=True)
    push(project, "img")
    for caller in (anon, bob_client):
        response = caller.get("/api/v2.0/projects/open/repositories/img")
        assert response.status_code == 200
        assert response.json()["name"] == "open/img"
        assert caller.put(
            "/api/v2.0/projects/open/repositories/img", {"description": "x"}
        ).status_code in (401, 403)
    private = ProjectFactory(name="closed", owner=alice)
    push(private, "img")
    assert anon.get("/api/v2.0/projects/closed/repositories/img").status_code == 401
    assert bob_client.get("/api/v2.0/projects/closed/repositories/img").status_code == 403
