"""The listings render records from query rows (registry.api.serializers), a page at a time;
as in Harbor, a list item is the same record as the one-object answer for it, byte for
byte."""

import json

import pytest

from registry.models import Label, ProjectMember
from registry.services import artifacts, labels, projects, usergroups
from tests.registry.conftest import client_for
from tests.registry.factories import LabelFactory, MemberFactory, ProjectFactory, UserFactory, push


def _same_bytes(list_item: dict, detail: bytes) -> None:
    # DRF writes compact JSON without ASCII escapes; compare in that form.
    rendered = json.dumps(list_item, separators=(",", ":"), ensure_ascii=False).encode()
    assert rendered == detail


@pytest.fixture
def world(alice, bob):
    """Two projects with members, metadata, a group role, repositories, an index with a
    child, tags, global and project labels and an artifact without tags."""
    shared = ProjectFactory(
        name="shared", owner=alice, public=True, metadata={"auto_scan": "true", "severity": "low"}
    )
    private = ProjectFactory(name="private", owner=bob)
    MemberFactory(project=private, user=alice, role=4)
    projects.update_project(private, None, {"items": [{"cve_id": "CVE-1"}], "expires_at": 99})
    child = push(shared, "app", tag=None, seed="child")
    index = push(
        shared,
        "app",
        tag="v1",
        seed="index",
        manifest_media_type="application/vnd.oci.image.index.v1+json",
        references=[
            {
                "digest": child.digest,
                "platform": {"architecture": "arm64", "os": "linux", "os.version": "1"},
                "annotations": {"a": "b"},
                "urls": ["https://example.org/é"],
            }
        ],
    )
    artifacts.record_artifact_push(shared, "app", index.digest, index.media_type, "x", tag="v2")
    plain = push(shared, "team/tool", tag="1.0", annotations={"org.x": "ü"})
    push(shared, "team/tool", tag=None, seed="untagged", extra_attrs={})
    push(private, "secret", tag="latest")
    global_label = LabelFactory(name="g-label", description="global")
    project_label = LabelFactory(name="p-label", scope=Label.Scope.PROJECT, project=shared)
    labels.add_label_to_artifact(index, global_label)
    labels.add_label_to_artifact(index, project_label)
    labels.add_label_to_artifact(plain, global_label)
    return shared, private


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["alice", "bob", "anonymous"])
def test_project_list_items_equal_project_bodies(world, who, alice, bob, anon):
    client = {"alice": client_for(alice), "bob": client_for(bob), "anonymous": anon}[who]
    items = client.get("/api/v2.0/projects").json()
    assert items
    for item in items:
        _same_bytes(item, client.get(f"/api/v2.0/projects/{item['project_id']}").content)


@pytest.mark.django_db
def test_project_list_roles_include_group_roles(world, alice):
    shared, _ = world
    group = usergroups.create_user_group("team", 2)
    group.users.add(alice)
    ProjectMember.objects.create(project=shared, group=group, role=2)
    client = client_for(alice)
    (item,) = [p for p in client.get("/api/v2.0/projects").json() if p["name"] == "shared"]
    assert item["current_user_role_ids"] == [1, 2]
    _same_bytes(item, client.get(f"/api/v2.0/projects/{item['project_id']}").content)


@pytest.mark.django_db
def test_project_list_without_detail(world, alice):
    client = client_for(alice)
    (item,) = [
        p
        for p in client.get("/api/v2.0/projects?with_detail=false").json()
        if p["name"] == "private"
    ]
    assert "metadata" not in item and "owner_name" not in item
    assert item["cve_allowlist"] == {
        "creation_time": "0001-01-01T00:00:00.000Z",
        "items": None,
        "update_time": "0001-01-01T00:00:00.000Z",
    }
    assert item["current_user_role_id"] == 4


@pytest.mark.django_db
def test_repository_list_items_equal_repository_bodies(world, alice):
    client = client_for(alice)
    for path in ("/api/v2.0/repositories", "/api/v2.0/projects/shared/repositories"):
        items = client.get(path).json()
        assert items
        for item in items:
            project, _, name = item["name"].partition("/")
            detail = client.get(
                f"/api/v2.0/projects/{project}/repositories/{name.replace('/', '%252F')}"
            )
            _same_bytes(item, detail.content)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "with_tag=true&with_label=true",
        "with_tag=false&with_label=true",
        "with_label=false",
        "q=base%3D*&with_label=true",
    ],
)
def test_artifact_list_items_equal_artifact_bodies(world, alice, query):
    client = client_for(alice)
    for repository in ("app", "team%252Ftool"):
        base = f"/api/v2.0/projects/shared/repositories/{repository}/artifacts"
        items = client.get(f"{base}?{query}").json()
        assert items
        for item in items:
            flags = query.replace("q=base%3D*&", "")
            detail = client.get(f"{base}/{item['digest']}?{flags}")
            _same_bytes(item, detail.content)


@pytest.mark.django_db
def test_artifact_list_shows_tags_labels_and_references(world, alice):
    client = client_for(alice)
    (index,) = client.get(
        "/api/v2.0/projects/shared/repositories/app/artifacts?with_label=true"
    ).json()
    assert [tag["name"] for tag in index["tags"]] == ["v2", "v1"]
    assert [label["name"] for label in index["labels"]] == ["g-label", "p-label"]
    assert index["references"][0]["platform"]["'os.version'"] == "1"


@pytest.mark.django_db
def test_member_of_no_project_sees_public_rows_without_roles(world):
    client = client_for(UserFactory(username="carol"))
    (item,) = client.get("/api/v2.0/projects").json()
    assert item["name"] == "shared"
    assert "current_user_role_id" not in item and item["current_user_role_ids"] is None


@pytest.mark.django_db
def test_database_formatted_times_equal_harbor_time(alice, admin_client):
    """Project and audit lists take their times from the database (HarborTime, an SQLite
    and a PostgreSQL branch): the same text harbor_time writes, milliseconds truncated,
    whole seconds included."""
    from datetime import UTC, datetime

    from registry.api.serializers.fields import harbor_time
    from registry.models import AuditLog, Project

    moments = [
        datetime(2026, 3, 4, 5, 6, 7, 0, tzinfo=UTC),
        datetime(2026, 3, 4, 5, 6, 7, 999999, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, 500, tzinfo=UTC),
        datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC),
    ]
    for n, moment in enumerate(moments):
        project = ProjectFactory(name=f"timed{n}", owner=alice)
        Project.objects.filter(pk=project.pk).update(creation_time=moment, update_time=moment)
        AuditLog.objects.create(
            project_id=project.pk, operation="create", resource_type="project",
            resource=project.name, username="alice", op_time=moment,
        )  # fmt: skip
    expected = [harbor_time(moment) for moment in moments]
    assert expected[1] == "2026-03-04T05:06:07.999Z"
    listed = admin_client.get("/api/v2.0/projects?name=timed&sort=name").json()
    assert [p["creation_time"] for p in listed] == expected
    assert [p["update_time"] for p in listed] == expected
    logs = admin_client.get("/api/v2.0/audit-logs?sort=id&page_size=100").json()
    assert [log["op_time"] for log in logs if log["resource"].startswith("timed")] == expected
