"""A repository renamed, edited or deleted while it is being created, forked or pushed to.

Creation commits the record first and runs git afterwards (never inside a transaction),
so a PATCH or DELETE of the new name can come while git works; a push resolves the name,
then runs git. Each answers as if it had come before or after the other, never 500, and
the disk ends up matching the records.
"""

import subprocess
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from codehost import git
from codehost.access import Actor
from codehost.errors import NotFound
from codehost.models import Owner, Repository
from codehost.services import repo_settings, repositories
from codehost.services.repo_settings import RepoEdit
from tests.codehost.factories import owner_of


def repository_directories(git_root) -> list[str]:
    """`owner/name.git` of every repository directory, staging folders aside."""
    return sorted(
        f"{owner.name}/{path.name}"
        for owner in git_root.iterdir()
        if not owner.name.startswith(".")
        for path in owner.iterdir()
    )


def staged(git_root) -> list[str]:
    return sorted(
        path.name for folder in git_root.glob(".*") if folder.is_dir() for path in folder.iterdir()
    )


def during_first_commit(monkeypatch, action):
    """Run `action()` once, when the creation's git work has begun."""
    real = git.initial_commit
    done = []

    def initial_commit(*args, **kwargs):
        if not done:
            done.append(action())
        return real(*args, **kwargs)

    monkeypatch.setattr(git, "initial_commit", initial_commit)


def options(name: str) -> repositories.RepoOptions:
    return repositories.RepoOptions(name=name, auto_init=True)


@pytest.mark.django_db(transaction=True)
def test_a_repository_renamed_while_git_makes_it_gets_its_directory_at_the_new_name(
    alice, git_root, monkeypatch
):
    actor = Actor(owner=owner_of(alice))

    def rename():
        repo = Repository.objects.select_related("owner").get(name="made")
        repo_settings.rename_repo(actor, repo, "renamed")

    during_first_commit(monkeypatch, rename)
    repo = repositories.create_repo(actor, owner_of(alice), options("made"))

    assert repo.name == "renamed"
    stored = Repository.objects.get(pk=repo.pk)
    assert (stored.name, stored.is_empty, stored.size > 0) == ("renamed", False, True)
    assert repository_directories(git_root) == ["alice/renamed.git"]
    assert "refs/heads/main" in git.refs(git_root / "alice" / "renamed.git")
    assert staged(git_root) == []


@pytest.mark.django_db(transaction=True)
def test_a_repository_deleted_while_git_makes_it_leaves_nothing(alice, git_root, monkeypatch):
    actor = Actor(owner=owner_of(alice))

    def delete():
        repositories.delete_repo(Repository.objects.select_related("owner").get(name="made"))

    during_first_commit(monkeypatch, delete)
    with pytest.raises(NotFound):
        repositories.create_repo(actor, owner_of(alice), options("made"))

    assert not Repository.objects.exists()
    assert Owner.objects.get(name="alice").num_repos == 0
    assert repository_directories(git_root) == []
    assert staged(git_root) == []


@pytest.mark.django_db(transaction=True)
def test_an_edit_of_a_repository_deleted_meanwhile_is_not_found(as_user, alice):
    assert as_user(alice).post("/user/repos", {"name": "gone"}).status_code == 201
    stale = Repository.objects.select_related("owner").get(name="gone")
    repositories.delete_repo(Repository.objects.select_related("owner").get(name="gone"))

    with pytest.raises(NotFound):
        repo_settings.edit_repo(Actor(owner=owner_of(alice)), stale, RepoEdit(description="d"))


@pytest.mark.django_db(transaction=True)
def test_clients_creating_renaming_and_deleting_the_same_names(as_user, alice, git_root):
    """Twelve clients create, delete and rename three names of one owner at once: no 500,
    and afterwards each record has its directory and no directory lacks a record."""
    barrier = threading.Barrier(12)

    def client(number: int) -> list[int]:
        api = as_user(alice)
        statuses = []
        try:
            barrier.wait()
            for round in range(3):
                name = f"r{(number + round) % 3}"
                statuses.append(
                    api.post("/user/repos", {"name": name, "auto_init": True}).status_code
                )
                statuses.append(
                    api.patch(f"/repos/alice/{name}", {"name": f"{name}-{number}"}).status_code
                )
                statuses.append(api.delete(f"/repos/alice/{name}").status_code)
        finally:
            connection.close()
        return statuses

    with ThreadPoolExecutor(12) as pool:
        statuses = Counter(status for got in pool.map(client, range(12)) for status in got)

    assert set(statuses) <= {200, 201, 204, 301, 404, 409}, statuses
    names = sorted(
        f"alice/{name}.git" for name in Repository.objects.values_list("lower_name", flat=True)
    )
    assert repository_directories(git_root) == names
    assert Owner.objects.get(name="alice").num_repos == len(names)
    assert staged(git_root) == []


# --- git pushes racing a rename ------------------------------------------------------------


def rename_to(alice, new_name: str):
    repo = Repository.objects.select_related("owner").get(owner__name="alice")
    repo_settings.rename_repo(Actor(owner=owner_of(alice)), repo, new_name)


@pytest.mark.django_db(transaction=True)
def test_a_push_whose_repository_is_renamed_after_it_was_resolved_is_not_found(
    as_user, alice, monkeypatch
):
    from django.test import Client

    from codehost import git_http
    from tests.codehost.conftest import basic

    assert as_user(alice).post("/user/repos", {"name": "old", "auto_init": True}).status_code
    real = repositories.resolve_repo

    def resolve_then_rename(owner, name):
        found = real(owner, name)
        rename_to(alice, "new")
        return found

    monkeypatch.setattr(git_http.repositories, "resolve_repo", resolve_then_rename)
    response = Client().post(
        "/alice/old.git/git-receive-pack",
        data=b"0000",
        content_type="application/x-git-receive-pack-request",
        HTTP_AUTHORIZATION=basic("alice"),
    )

    assert response.status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_push_renamed_as_git_finishes_is_recorded(live_server, alice, tmp_path, monkeypatch):
    from codehost.models import Activity, OpType
    from tests.codehost.factories import PASSWORD
    from tests.codehost.test_git_http import commit_file

    repositories.create_repo(Actor(owner=owner_of(alice)), owner_of(alice), options("old"))
    real = git.http_backend

    def backend(path_info, environ, body, on_finish):
        def finished(returncode):
            rename_to(alice, "new")
            on_finish(returncode)

        return real(path_info, environ, body, finished if on_finish else None)

    monkeypatch.setattr(git, "http_backend", backend)
    work = tmp_path / "work"
    environment = {"HOME": str(tmp_path), "GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin"}

    def run(*args):
        subprocess.run(
            ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
            cwd=work,
            env=environment,
            check=True,
            capture_output=True,
        )

    host = live_server.url.removeprefix("http://")
    work.mkdir()
    run("init", "-q", "-b", "topic")
    commit_file(lambda *a, cwd: run(*a), work, "a.txt", "a\n")
    run("push", "-q", f"http://alice:{PASSWORD}@{host}/alice/old.git", "topic")

    repo = Repository.objects.get(owner__name="alice")
    assert repo.name == "new"
    assert Activity.objects.filter(repo=repo, op_type=OpType.COMMIT_REPO).exists()
    assert "refs/heads/topic" in git.refs(git.repo_path("alice", "new"))
