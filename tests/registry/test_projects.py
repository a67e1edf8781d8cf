"""Projects: list, HEAD, create, get, update, delete, _deletable, summary."""

import pytest

from registry.models import Project, ProjectMember, ProjectMetadata
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory, push

pytestmark = pytest.mark.django_db


def errors(response):
    return response.json()["errors"]


def test_create_project_gives_201_location_and_creator_is_admin(alice_client, alice):
    response = alice_client.post(
        "/api/v2.0/projects", {"project_name": "team-a", "metadata": {"auto_scan": "true"}}
    )
    assert response.status_code == 201
    project = Project.objects.get(name="team-a")
    assert response["Location"] == f"/api/v2.0/projects/{project.pk}"
    assert response.content == b""
    assert "Content-Type" not in response
    assert ProjectMember.objects.get(project=project).user == alice
    metadata = dict(project.metadata.values_list("name", "value"))
    assert metadata == {"auto_scan": "true", "public": "false"}


def test_create_with_name_in_location_and_deprecated_public(alice_client):
    response = alice_client.post(
        "/api/v2.0/projects",
        {"project_name": "pub", "public": True},
        HTTP_X_RESOURCE_NAME_IN_LOCATION="true",
    )
    assert response["Location"] == "/api/v2.0/projects/pub"
    assert ProjectMetadata.objects.get(name="public").value == "true"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Upper", "project name is not in lower case or contains illegal characters"),
        ("a--b", "project name is not in lower case or contains illegal characters"),
        ("-a", "project name is not in lower case or contains illegal characters"),
        # Harbor's pattern ends at the end of the text (Go's `$`), not before a final newline.
        ("team\n", "project name is not in lower case or contains illegal characters"),
        ("", "Project name  is illegal in length. (greater than 255 or less than 1)"),
    ],
)
def test_create_rejects_bad_names(alice_client, name, message):
    response = alice_client.post("/api/v2.0/projects", {"project_name": name})
    assert response.status_code == 400
    assert errors(response) == [{"code": "BAD_REQUEST", "message": message}]


def test_create_rejects_bad_public_metadata_and_bad_body(alice_client):
    response = alice_client.post(
        "/api/v2.0/projects", {"project_name": "x1", "metadata": {"public": "yes"}}
    )
    assert response.status_code == 400
    assert errors(response)[0]["message"] == (
        "metadata.public should only be 'true' or 'false', but got: 'yes'"
    )
    bad = alice_client.post("/api/v2.0/projects", "[1]", content_type="application/json")
    assert bad.status_code == 422
    # go-swagger reports a body it cannot parse in its validation list, as 422.
    broken = alice_client.post("/api/v2.0/projects", "{", content_type="application/json")
    assert broken.status_code == 422
    assert errors(broken)[0]["message"].startswith(
        'validation failure list:\nparsing project body from "" failed, because '
    )
    assert not Project.objects.exists()


def test_create_duplicate_is_409_and_anonymous_is_401(alice_client, anon):
    assert alice_client.post("/api/v2.0/projects", {"project_name": "dup"}).status_code == 201
    response = alice_client.post("/api/v2.0/projects", {"project_name": "dup"})
    assert response.status_code == 409
    assert errors(response) == [
        {"code": "CONFLICT", "message": "The project named dup already exists"}
    ]
    assert anon.post("/api/v2.0/projects", {"project_name": "z"}).status_code == 401


def test_adminonly_restriction_takes_effect(admin_client, alice_client):
    response = admin_client.put(
        "/api/v2.0/configurations", {"project_creation_restriction": "adminonly"}
    )
    assert response.status_code == 200
    denied = alice_client.post("/api/v2.0/projects", {"project_name": "p1"})
    assert denied.status_code == 403
    assert denied.json() == {
        "errors": [{"code": "FORBIDDEN", "message": "Only system admin can create project"}]
    }
    assert admin_client.post("/api/v2.0/projects", {"project_name": "p1"}).status_code == 201
    admin_client.put("/api/v2.0/configurations", {"project_creation_restriction": "everyone"})
    assert alice_client.post("/api/v2.0/projects", {"project_name": "p2"}).status_code == 201


def test_storage_limit_only_from_admin(admin_client, alice_client):
    admin_client.post("/api/v2.0/projects", {"project_name": "big", "storage_limit": 1024})
    alice_client.post("/api/v2.0/projects", {"project_name": "small", "storage_limit": 1024})
    assert Project.objects.get(name="big").storage_limit == 1024
    assert Project.objects.get(name="small").storage_limit == -1
    bad = admin_client.post("/api/v2.0/projects", {"project_name": "bad", "storage_limit": -5})
    assert bad.status_code == 400


def test_head_project(alice_client, anon, alice):
    ProjectFactory(name="exists", owner=alice)
    assert alice_client.head("/api/v2.0/projects?project_name=exists").status_code == 200
    assert alice_client.head("/api/v2.0/projects?project_name=nope").status_code == 404
    assert alice_client.head("/api/v2.0/projects?project_name=a%20b").status_code == 400
    assert alice_client.head("/api/v2.0/projects").status_code == 422
    assert anon.head("/api/v2.0/projects?project_name=exists").status_code == 401


def test_list_visibility_and_shape(anon, alice_client, bob_client, alice, bob, admin_client):
    ProjectFactory(name="public1", owner=alice, public=True)
    private = ProjectFactory(name="private1", owner=alice)
    ProjectFactory(name="private2", owner=alice)
    MemberFactory(project=private, user=bob, role=3)

    assert [p["name"] for p in anon.get("/api/v2.0/projects").json()] == ["public1"]
    assert anon.get("/api/v2.0/projects?public=false").json() == []
    bob_names = [p["name"] for p in bob_client.get("/api/v2.0/projects").json()]
    assert bob_names == ["private1", "public1"]
    response = admin_client.get("/api/v2.0/projects")
    assert response["X-Total-Count"] == "3"

    item = alice_client.get("/api/v2.0/projects?name=private1").json()[0]
    assert list(item) == sorted(item)
    assert item["current_user_role_id"] == 1
    assert item["current_user_role_ids"] == [1]
    assert item["owner_name"] == "alice"
    assert item["metadata"] == {"public": "false"}
    assert item["repo_count"] == 0
    assert item["creation_time"].endswith("Z") and len(item["creation_time"]) == 24
    assert item["cve_allowlist"]["items"] == []
    assert item["cve_allowlist"]["creation_time"] == "0001-01-01T00:00:00.000Z"
    assert "registry_id" not in item and "deleted" not in item

    anon_item = anon.get("/api/v2.0/projects").json()[0]
    assert anon_item["current_user_role_ids"] is None
    assert "current_user_role_id" not in anon_item


def test_a_link_header_never_carries_a_line_break(admin_client, alice):
    """Harbor unescapes the query it writes in Link; a CR or LF there becomes a space, as
    Go's header writer does (it was a 500: Django refuses a header holding a newline)."""
    for n in range(3):
        ProjectFactory(name=f"dev{n:02d}", owner=alice)
    response = admin_client.get("/api/v2.0/projects?page_size=1&x=a%0D%0AX-Evil:1")
    assert response.status_code == 200
    assert response["Link"] == '</api/v2.0/projects?page=2&page_size=1&x=a  X-Evil:1>; rel="next"'
    assert not response.has_header("X-Evil")


def test_a_link_header_is_printable_ascii(admin_client, alice):
    """A NUL or another control character of the caller's in the query is no header byte
    either (gunicorn refused the response: a 500), and a non-ASCII one made Django send
    the whole header MIME-encoded: they stay in the link percent-encoded (UTF-8)."""
    for n in range(3):
        ProjectFactory(name=f"dev{n:02d}", owner=alice)
    response = admin_client.get("/api/v2.0/projects?page_size=1&x=a%00%01%1F%7F&y=%C3%A9%E2%82%AC")
    assert response.status_code == 200
    assert response["Link"] == (
        '</api/v2.0/projects?page=2&page_size=1&x=a%00%01%1F%7F&y=%C3%A9%E2%82%AC>; rel="next"'
    )


def test_list_filters_q_sort_and_paging(admin_client, alice):
    for n in range(12):
        ProjectFactory(name=f"dev{n:02d}", owner=alice, public=n % 2 == 0)
    ProjectFactory(name="other", owner=alice)
    response = admin_client.get("/api/v2.0/projects?q=name%3D~dev&page=2&page_size=5")
    assert response["X-Total-Count"] == "12"
    assert [p["name"] for p in response.json()] == [f"dev{n:02d}" for n in range(5, 10)]
    assert response["Link"] == (
        '</api/v2.0/projects?page=1&page_size=5&q=name=~dev>; rel="prev" , '
        '</api/v2.0/projects?page=3&page_size=5&q=name=~dev>; rel="next"'
    )
    names = [p["name"] for p in admin_client.get("/api/v2.0/projects?sort=-name").json()]
    assert names[0] == "other"
    exact = admin_client.get("/api/v2.0/projects?q=name=dev01").json()
    assert [p["name"] for p in exact] == ["dev01"]
    public = admin_client.get("/api/v2.0/projects?public=true&page_size=100").json()
    assert len(public) == 6
    any_of = admin_client.get("/api/v2.0/projects?q=name%3D%7Bdev01+dev03%7D").json()
    assert [p["name"] for p in any_of] == ["dev01", "dev03"]
    assert admin_client.get("/api/v2.0/projects?q=unknown=1").status_code == 200
    bad = admin_client.get("/api/v2.0/projects?q=name")
    assert bad.status_code == 400
    assert errors(bad)[0]["message"] == (
        'the query string must contain "=" and the key/value cannot be empty'
    )
    assert admin_client.get("/api/v2.0/projects?page_size=101").status_code == 422
    no_detail = admin_client.get("/api/v2.0/projects?with_detail=false").json()[0]
    assert "metadata" not in no_detail and "owner_name" not in no_detail
    assert no_detail["cve_allowlist"] == {
        "creation_time": "0001-01-01T00:00:00.000Z",
        "items": None,
        "update_time": "0001-01-01T00:00:00.000Z",
    }
    assert admin_client.get("/api/v2.0/projects?with_detail=maybe").status_code == 422


def test_get_by_id_name_and_resource_name_header(alice_client, alice, admin_client, bob_client):
    project = ProjectFactory(name="123", owner=alice)
    by_name = alice_client.get("/api/v2.0/projects/123", HTTP_X_IS_RESOURCE_NAME="true")
    assert by_name.status_code == 200
    assert by_name.json()["project_id"] == project.pk
    assert alice_client.get(f"/api/v2.0/projects/{project.pk}").json()["name"] == "123"
    # A private project: 401 anonymous, 403 signed-in stranger, 404 only for an admin.
    assert admin_client.get("/api/v2.0/projects/99999").status_code == 404
    assert bob_client.get("/api/v2.0/projects/99999").status_code == 403
    assert bob_client.get(f"/api/v2.0/projects/{project.pk}").status_code == 403
    missing = admin_client.get("/api/v2.0/projects/nope")
    assert errors(missing) == [{"code": "NOT_FOUND", "message": "project nope not found"}]


def test_a_name_is_an_id_only_as_go_parses_one(alice_client, alice):
    """Harbor reads the segment with strconv.ParseInt: an optional sign and ASCII digits.
    Python's int() also takes underscores, white space and other scripts' digits, so the
    project named 1_0 was project 10 (and a DELETE of it would have deleted that one)."""
    tenth = ProjectFactory(name="tenth", owner=alice)
    named = ProjectFactory(name=f"{tenth.pk // 10}_{tenth.pk % 10}", owner=alice)
    assert alice_client.get(f"/api/v2.0/projects/{named.name}").json()["name"] == named.name
    assert alice_client.get(f"/api/v2.0/projects/+{tenth.pk}").json()["name"] == "tenth"
    for spelled in (f"%20{tenth.pk}", "%D9%A1"):  # white space; ARABIC-INDIC DIGIT ONE
        assert alice_client.get(f"/api/v2.0/projects/{spelled}").status_code == 403


def test_update_merges_metadata_and_allowlist(alice_client, alice, bob_client):
    project = ProjectFactory(name="upd", owner=alice)
    response = alice_client.put(
        "/api/v2.0/projects/upd",
        {
            "project_name": "ignored",
            "metadata": {"auto_scan": "true"},
            "cve_allowlist": {"items": [{"cve_id": "CVE-2019-10164"}], "expires_at": 1767225600},
        },
    )
    assert response.status_code == 200
    data = alice_client.get(f"/api/v2.0/projects/{project.pk}").json()
    assert data["name"] == "upd"
    assert data["metadata"] == {"auto_scan": "true", "public": "false"}
    assert data["cve_allowlist"]["items"] == [{"cve_id": "CVE-2019-10164"}]
    assert data["cve_allowlist"]["expires_at"] == 1767225600
    assert bob_client.put("/api/v2.0/projects/upd", {"metadata": {}}).status_code == 403


def test_delete_refused_with_repositories_then_allowed(alice_client, alice):
    project = ProjectFactory(name="del", owner=alice)
    push(project, "app")
    response = alice_client.delete("/api/v2.0/projects/del")
    assert response.status_code == 412
    assert errors(response) == [
        {
            "code": "PRECONDITION",
            "message": "precondition failed: the project contains repositories, can not be deleted",
        }
    ]
    deletable = alice_client.get("/api/v2.0/projects/del/_deletable").json()
    assert deletable == {"message": "the project contains repositories, can not be deleted"}
    alice_client.delete("/api/v2.0/projects/del/repositories/app")
    assert alice_client.get("/api/v2.0/projects/del/_deletable").json() == {"deletable": True}
    assert alice_client.delete("/api/v2.0/projects/del").status_code == 200
    assert not Project.objects.exists()
    assert not ProjectMember.objects.exists() and not ProjectMetadata.objects.exists()


def test_delete_needs_project_admin(alice, bob, bob_client):
    project = ProjectFactory(name="keep", owner=alice)
    MemberFactory(project=project, user=bob, role=4)
    assert bob_client.delete("/api/v2.0/projects/keep").status_code == 403
    assert bob_client.get("/api/v2.0/projects/keep/_deletable").status_code == 403


def test_summary_counts_roles_and_quota(alice, alice_client, anon):
    project = ProjectFactory(name="sum", owner=alice, public=True)
    MemberFactory(project=project, role=2)
    MemberFactory(project=project, role=2)
    MemberFactory(project=project, role=5)
    push(project, "app", size=1234)
    summary = alice_client.get("/api/v2.0/projects/sum/summary").json()
    assert summary == {
        "developer_count": 2,
        "limited_guest_count": 1,
        "project_admin_count": 1,
        "quota": {"hard": {"storage": -1}, "used": {"storage": 1234}},
        "repo_count": 1,
    }
    # A public project's stranger sees the repository count only.
    assert anon.get("/api/v2.0/projects/sum/summary").json() == {"repo_count": 1}


def test_group_membership_grants_the_role(alice):
    from tests.registry.factories import UserGroupFactory

    carol = UserFactory(username="carol")
    group = UserGroupFactory()
    group.users.add(carol)
    project = ProjectFactory(name="grp", owner=alice)
    MemberFactory(project=project, user=None, group=group, role=4)
    item = client_for(carol).get("/api/v2.0/projects").json()
    assert [(p["name"], p["current_user_role_id"]) for p in item] == [("grp", 4)]
