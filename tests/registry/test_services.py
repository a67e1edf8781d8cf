"""The push path and quota accounting the OCI API relies on."""

import pytest

from registry import configuration
from registry.errors import Conflict, Forbidden, NotFound, QuotaExceeded
from registry.models import Artifact, Project, ProjectMember, Repository, Role, Tag
from registry.services import (
    artifacts,
    labels,
    members,
    metadata,
    projects,
    quota,
    repositories,
    robots,
)
from registry.services import configuration as configuration_service
from tests.registry.factories import ProjectFactory, digest_of, push

pytestmark = pytest.mark.django_db


def robot_permissions(project):
    access = [{"resource": "repository", "action": "pull"}]
    return [{"kind": "project", "namespace": project.name, "access": access}]


def test_push_creates_repository_artifact_tag_and_counts_storage_once(alice):
    project = ProjectFactory(owner=alice)
    first = push(project, "app", tag="v1", seed="img", size=500)
    second = push(project, "app", tag="v2", seed="img", size=500)
    assert first.pk == second.pk
    assert Repository.objects.get().name == f"{project.name}/app"
    assert sorted(Tag.objects.values_list("name", flat=True)) == ["v1", "v2"]
    project.refresh_from_db()
    assert project.storage_used == 500
    push(project, "other", tag="x", seed="img", size=500)
    project.refresh_from_db()
    assert project.storage_used == 500


def test_tag_moves_to_the_new_artifact(alice):
    project = ProjectFactory(owner=alice)
    old = push(project, "app", tag="latest", seed="one")
    new = push(project, "app", tag="latest", seed="two")
    assert Tag.objects.get(name="latest").artifact_id == new.pk
    assert old.tags.count() == 0


def test_quota_refuses_a_push_over_the_limit(alice):
    project = ProjectFactory(owner=alice)
    Project.objects.filter(pk=project.pk).update(storage_limit=1500)
    push(project, "app", tag="a", seed="a", size=1000)
    with pytest.raises(QuotaExceeded):
        push(project, "app", tag="b", seed="b", size=1000)
    assert Artifact.objects.count() == 1


def test_index_references_and_delete_removes_orphan_children(alice):
    project = ProjectFactory(owner=alice)
    child = push(project, "multi", tag=None, seed="child", size=100)
    index = push(
        project,
        "multi",
        tag="latest",
        seed="index",
        media_type="application/vnd.oci.image.index.v1+json",
        manifest_media_type="application/vnd.oci.image.index.v1+json",
        size=50,
        references=[{"digest": child.digest, "platform": {"architecture": "arm64", "os": "linux"}}],
    )
    assert index.references.get().child_id == child.pk
    artifacts.delete_artifact(index)
    assert not Artifact.objects.exists()
    project.refresh_from_db()
    assert project.storage_used == 0


def test_an_artifact_deleted_meanwhile_is_not_found(alice):
    """Two deletes of one artifact racing: the second, holding the row it read before the
    first committed, finds it gone under the project's lock (Harbor: 404), rather than
    answering a success of its own."""
    project = ProjectFactory(owner=alice)
    artifact = push(project, "app", tag="v1")
    stale = Artifact.objects.get(pk=artifact.pk)
    artifacts.delete_artifact(artifact)
    with pytest.raises(NotFound):
        artifacts.delete_artifact(stale)
    with pytest.raises(NotFound):
        artifacts.delete_tag(stale.repository, "v1")


def test_a_project_deleted_meanwhile_stays_deleted(alice):
    """A PUT racing a DELETE, holding the project it read before the delete committed:
    404, and the project is not inserted again (a full save did, without its members)."""
    project = ProjectFactory(owner=alice)
    stale = Project.objects.get(pk=project.pk)
    projects.delete_project(project)
    with pytest.raises(NotFound):
        projects.update_project(stale, {"auto_scan": "true"}, {"items": []})
    with pytest.raises(NotFound):
        projects.delete_project(stale)
    assert not Project.objects.exists()


def test_rows_for_a_project_deleted_meanwhile_are_not_found(alice, bob):
    """Members, metadata, project labels, robots and pushes racing the project's delete:
    404 (their foreign key failed at commit: a 500, or a 409 for a robot), nothing kept."""
    project = ProjectFactory(owner=alice)
    stale = Project.objects.get(pk=project.pk)
    projects.delete_project(project)
    attempts = [
        lambda: members.add_member(stale, Role.DEVELOPER, user=bob),
        lambda: metadata.add_metadata(stale, {"auto_scan": "true"}),
        lambda: metadata.set_metadata(stale, "auto_scan", {"auto_scan": "true"}),
        lambda: labels.create_label("l1", "p", stale),
        lambda: robots.create(alice, "ci", "project", robot_permissions(stale), project=stale),
        lambda: push(stale, "app"),
    ]
    for attempt in attempts:
        with pytest.raises(NotFound):
            attempt()
    assert not ProjectMember.objects.exists() and not Repository.objects.exists()
    with pytest.raises(NotFound):  # an upload completing (or a mount) into it
        quota.add_blob(stale, digest_of("layer"), 10, lambda: None)


def test_a_project_update_keeps_the_usage_a_push_counted_meanwhile(alice):
    project = ProjectFactory(owner=alice)
    stale = Project.objects.get(pk=project.pk)
    push(project, "app", size=700)
    projects.update_project(stale, {"auto_scan": "true"}, {"items": [{"cve_id": "CVE-1"}]})
    project.refresh_from_db()
    assert project.storage_used == 700
    assert project.cve_allowlist_items == [{"cve_id": "CVE-1"}]


def test_a_repository_deleted_meanwhile_is_not_found(alice):
    project = ProjectFactory(owner=alice)
    push(project, "app")
    repository = Repository.objects.get()
    stale = Repository.objects.get(pk=repository.pk)
    repositories.delete_repository(repository)
    with pytest.raises(NotFound):
        repositories.delete_repository(stale)
    with pytest.raises(NotFound):
        repositories.update_repository_description(stale, "x")


def test_delete_repository_releases_storage(alice):
    project = ProjectFactory(owner=alice)
    push(project, "app", tag="v1", seed="a", size=300)
    push(project, "app", tag="v2", seed="b", size=200)
    repositories.delete_repository(Repository.objects.get())
    project.refresh_from_db()
    assert project.storage_used == 0
    assert not Tag.objects.exists()


def test_creator_is_project_admin_and_duplicate_is_conflict(alice):
    project = ProjectFactory(owner=alice, name="dup")
    assert ProjectMember.objects.get(project=project).user == alice
    with pytest.raises(Conflict):
        ProjectFactory(owner=alice, name="dup")


def test_configuration_write_is_seen_by_a_fresh_read_and_restricts_creation(alice):
    assert configuration.get("project_creation_restriction") == "everyone"
    configuration_service.update_configuration({"project_creation_restriction": "adminonly"})
    assert configuration.get("project_creation_restriction") == "adminonly"
    with pytest.raises(Forbidden):
        projects.create_project(alice, "denied")


def test_digest_helper_is_stable():
    assert digest_of("x") == digest_of("x") != digest_of("y")
