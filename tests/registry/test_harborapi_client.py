"""Harbor's own Python client (harborapi) driven against a live server: paging by Link,
error parsing, Location headers, double-encoded repository names, bodiless answers."""

import asyncio

import pytest
from harborapi.exceptions import BadRequest, Conflict, Forbidden, NotFound, PreconditionFailed
from harborapi.models import (
    Configurations,
    Label,
    ProjectMetadata,
    ProjectReq,
    Tag,
    UserCreationReq,
)

from registry.models import Project
from tests.registry.conftest import run
from tests.registry.factories import UserFactory, push

pytestmark = pytest.mark.django_db(transaction=True)


def test_projects_lifecycle_and_link_paging(harbor):
    client = harbor()

    async def scenario():
        location = await client.create_project(
            ProjectReq(project_name="team-a", metadata=ProjectMetadata(public="false"))
        )
        assert location == "/api/v2.0/projects/team-a"
        assert await client.project_exists("team-a")
        assert not await client.project_exists("nope")
        with pytest.raises(Conflict) as conflict:
            await client.create_project(ProjectReq(project_name="team-a"))
        assert conflict.value.errors[0].message == "The project named team-a already exists"
        for n in range(23):
            await client.create_project(ProjectReq(project_name=f"p{n:02d}"))
        # The client follows `Link: <...>; rel="next"` until it is gone.
        everything = await client.get_projects(page_size=5, query="name=~p")
        assert [p.name for p in everything] == [f"p{n:02d}" for n in range(23)]
        project = await client.get_project("team-a")
        assert project.owner_name == "admin" and project.metadata.public == "false"
        assert project.current_user_role_id == 1
        await client.update_project(
            "team-a", ProjectReq(metadata=ProjectMetadata(auto_scan="true"))
        )
        assert (await client.get_project("team-a")).metadata.auto_scan == "true"
        summary = await client.get_project_summary("team-a")
        assert summary.repo_count == 0
        assert (await client.get_project_deletable("team-a")).deletable is True
        await client.delete_project("team-a")
        with pytest.raises(NotFound):
            await client.get_project("team-a")

    run(scenario())


def test_members_and_metadata(harbor):
    client = harbor()
    UserFactory(username="bob")

    async def scenario():
        await client.create_project(ProjectReq(project_name="shared"))
        location = await client.add_project_member_user("shared", "bob", 3)
        member_id = int(location.rsplit("/", 1)[1])
        members = await client.get_project_members("shared")
        assert sorted((m.entity_name, m.role_name) for m in members) == [
            ("admin", "projectAdmin"),
            ("bob", "guest"),
        ]
        await client.update_project_member_role("shared", member_id, 2)
        member = await client.get_project_member("shared", member_id)
        assert member.role_id == 2 and member.entity_type == "u"
        with pytest.raises(Conflict):
            await client.add_project_member_user("shared", "bob", 2)
        await client.remove_project_member("shared", member_id)
        assert len(await client.get_project_members("shared")) == 1

        # harborapi calls /metadatas without the trailing slash.
        await client.set_project_metadata("shared", ProjectMetadata(auto_scan="true"))
        metadata = await client.get_project_metadata("shared")
        assert metadata.auto_scan == "true" and metadata.public == "false"
        await client.update_project_metadata_entry("shared", "auto_scan", {"auto_scan": "false"})
        assert (await client.get_project_metadata_entry("shared", "auto_scan")) == {
            "auto_scan": "false"
        }
        await client.delete_project_metadata_entry("shared", "auto_scan")
        assert "auto_scan" not in (await client.get_project_metadata("shared")).model_dump(
            exclude_none=True
        )

    run(scenario())


def test_repositories_artifacts_and_labels(harbor):
    client = harbor()

    async def scenario():
        await client.create_project(ProjectReq(project_name="apps"))
        project = await asyncio.to_thread(Project.objects.get, name="apps")
        for n in range(12):
            await asyncio.to_thread(push, project, f"team/svc{n:02d}", "v1")
        artifact = await asyncio.to_thread(push, project, "team/svc00", "v2", "second")
        repositories = await client.get_repositories("apps", page_size=5)
        assert len(repositories) == 12
        repository = await client.get_repository("apps", "team/svc00")
        assert repository.name == "apps/team/svc00" and repository.artifact_count == 2
        artifacts = await client.get_artifacts("apps", "team/svc00", with_label=True)
        assert [a.tags[0].name for a in artifacts] == ["v2", "v1"]
        tagged = await client.get_artifacts("apps", "team/svc00", query="tags=v1")
        assert len(tagged) == 1
        label_location = await client.create_label(Label(name="prod", scope="g", color="#FF0000"))
        label_id = int(label_location.rsplit("/", 1)[1])
        await client.add_artifact_label("apps", "team/svc00", artifact.digest, Label(id=label_id))
        fetched = await client.get_artifact("apps", "team/svc00", "v2", with_label=True)
        assert [label.name for label in fetched.labels] == ["prod"]
        with pytest.raises(PreconditionFailed):
            await client.delete_project("apps")
        await client.delete_repository("apps", "team/svc00")
        with pytest.raises(NotFound):
            await client.get_repository("apps", "team/svc00")
        everywhere = await client.get_repositories(page_size=100)
        assert len(everywhere) == 11

    run(scenario())


def test_users_configuration_and_permissions(harbor):
    admin = harbor()

    async def scenario():
        await admin.create_user(
            UserCreationReq(
                username="carol", email="carol@example.com", password="Secret123", realname="C"
            )
        )
        carol = harbor("carol", "Secret123")
        me = await carol.get_current_user()
        assert me.username == "carol" and me.sysadmin_flag is False
        with pytest.raises(Forbidden):
            await carol.get_config()
        await admin.update_config(Configurations(project_creation_restriction="adminonly"))
        config = await admin.get_config()
        assert config.project_creation_restriction.value == "adminonly"
        with pytest.raises(Forbidden) as denied:
            await carol.create_project(ProjectReq(project_name="mine"))
        assert denied.value.errors[0].message == "Only system admin can create project"
        await admin.update_config(Configurations(project_creation_restriction="everyone"))
        await carol.create_project(ProjectReq(project_name="mine"))
        mine = await carol.get_project("mine")
        held = await carol.get_current_user_permissions(f"/project/{mine.project_id}", True)
        assert {(p.resource, p.action) for p in held} >= {(".", "update"), ("repository", "push")}
        users = await admin.get_users()
        assert [u.username for u in users] == ["carol"]
        stats = await carol.get_statistics()
        assert stats.private_project_count == 1
        health = await admin.health_check()
        assert {c.name for c in health.components} >= {"core", "database", "redis"}

    run(scenario())


def test_artifact_tags(harbor):
    client = harbor()
    UserFactory(username="guest")

    async def scenario():
        await client.create_project(ProjectReq(project_name="apps"))
        project = await asyncio.to_thread(Project.objects.get, name="apps")
        artifact = await asyncio.to_thread(push, project, "team/web", "v1")
        for n in range(12):
            location = await client.create_artifact_tag(
                "apps", "team/web", "v1", Tag(name=f"rc{n:02d}")
            )
            assert location == ""  # Harbor sets no Location: it serves no single tag
        # The client follows the Link header page by page.
        listed = await client.get_artifact_tags("apps", "team/web", artifact.digest, page_size=5)
        assert sorted(t.name for t in listed) == [f"rc{n:02d}" for n in range(12)] + ["v1"]
        assert all(t.artifact_id == artifact.pk and t.immutable is False for t in listed)
        fuzzy = await client.get_artifact_tags(
            "apps", "team/web", "v1", query="name=~rc1", with_signature=True
        )
        assert sorted(t.name for t in fuzzy) == ["rc10", "rc11"]
        with pytest.raises(Conflict):
            await client.create_artifact_tag("apps", "team/web", "v1", Tag(name="rc00"))
        with pytest.raises(BadRequest):
            await client.create_artifact_tag("apps", "team/web", "v1", Tag(name="a/b"))
        await client.delete_artifact_tag("apps", "team/web", "rc00", "rc00")
        with pytest.raises(NotFound):
            await client.delete_artifact_tag("apps", "team/web", "v1", "rc00")
        await client.add_project_member_user("apps", "guest", 3)
        guest = harbor("guest")
        assert len(await guest.get_artifact_tags("apps", "team/web", "v1", page_size=100)) == 12
        with pytest.raises(Forbidden):
            await guest.create_artifact_tag("apps", "team/web", "v1", Tag(name="mine"))
        with pytest.raises(Forbidden):
            await guest.delete_artifact_tag("apps", "team/web", "v1", "rc01")

    run(scenario())
