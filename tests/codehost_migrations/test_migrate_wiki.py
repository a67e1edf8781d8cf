"""`wiki: true`: the remote's wiki repository (`<address>.wiki.git`, as Gitea looks for it)
is migrated along with the code, and a mirror keeps it in sync."""

import pytest

from codehost.models import Mirror
from tests.codehost_migrations.conftest import SourceRepo, git
from tests.conftest import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

URL = "/api/v1/repos/migrate"


@pytest.fixture
def source_wiki(source_repo) -> SourceRepo:
    wiki = SourceRepo(source_repo.path.with_name("source.wiki.git"))
    wiki.commit("Home.md", "# wiki home\n")
    return wiki


def wiki_refs(path) -> dict[str, str]:
    output = git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", cwd=path)
    return dict(line.split(" ", 1) for line in output.splitlines())


def test_the_wiki_is_migrated_only_when_asked_and_moves_with_a_rename(
    celery_worker, admin_client, local_imports, source_repo, source_wiki, clean_git_root
):
    asked = admin_client.post(
        URL,
        {"clone_addr": str(source_repo.path), "repo_name": "withwiki", "wiki": True},
        format="json",
    )
    assert asked.status_code == 201, asked.content
    wiki = clean_git_root / "admin" / "withwiki.git" / "wiki.git"
    assert wiki_refs(wiki) == source_wiki.refs()
    # Like the code, a migrated (not mirrored) wiki forgets its origin.
    assert git("remote", cwd=wiki) == ""

    renamed = admin_client.patch("/api/v1/repos/admin/withwiki", {"name": "moved"}, format="json")
    assert renamed.status_code == 200, renamed.content
    assert wiki_refs(clean_git_root / "admin" / "moved.git" / "wiki.git") == source_wiki.refs()

    not_asked = admin_client.post(
        URL, {"clone_addr": str(source_repo.path), "repo_name": "nowiki"}, format="json"
    )
    assert not_asked.status_code == 201, not_asked.content
    assert not (clean_git_root / "admin" / "nowiki.git" / "wiki.git").exists()


def test_a_remote_without_a_wiki_still_migrates(
    celery_worker, admin_client, local_imports, source_repo, clean_git_root
):
    response = admin_client.post(
        URL,
        {"clone_addr": str(source_repo.path), "repo_name": "plain", "wiki": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["empty"] is False
    assert not (clean_git_root / "admin" / "plain.git" / "wiki.git").exists()


def test_a_mirror_syncs_its_wiki(
    celery_worker, admin_client, local_imports, source_repo, source_wiki, clean_git_root
):
    response = admin_client.post(
        URL,
        {"clone_addr": str(source_repo.path), "repo_name": "m", "mirror": True, "wiki": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    wiki = clean_git_root / "admin" / "m.git" / "wiki.git"
    assert wiki_refs(wiki) == source_wiki.refs()
    mirror = Mirror.objects.get(repo_id=response.json()["id"])
    first_update = mirror.updated

    source_wiki.commit("Page.md", "a new page\n")
    assert admin_client.post("/api/v1/repos/admin/m/mirror-sync").status_code == 200

    def synced():
        mirror.refresh_from_db()
        return mirror.updated > first_update and mirror.sync_state == Mirror.SyncState.IDLE

    wait_until(synced, 30, message="the mirror sync to finish")
    assert wiki_refs(wiki) == source_wiki.refs()
