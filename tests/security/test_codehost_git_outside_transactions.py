"""Git never runs inside a database transaction (a clone would hold the database's locks
for its whole length: SQLite's single write lock), and when the git step fails after the
record was committed, neither the record nor the directory is left behind."""

import pytest
from django.db import connection

from codehost import git
from codehost.git import process
from codehost.models import Mirror, Owner, Repository
from codehost.services import mirrors
from codehost.tasks import sync_mirror
from tests.security.codehost_support import api, basic, owner

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def codehost_git_root(settings, tmp_path):
    settings.CODEHOST_GIT_ROOT = tmp_path / "git"
    return settings.CODEHOST_GIT_ROOT


@pytest.fixture
def git_calls(monkeypatch):
    """Every git process started through codehost.git, with whether a transaction was open."""
    calls = []
    for name in ("run", "run_remote"):
        real = getattr(process, name)

        def spy(args, *rest, _real=real, **kwargs):
            calls.append((args[0], connection.in_atomic_block))
            return _real(args, *rest, **kwargs)

        monkeypatch.setattr(process, name, spy)
    return calls


def test_create_fork_edit_delete_and_mirror_sync_run_git_outside_transactions(git_calls, tmp_path):
    owner("alice")
    owner("bob")
    alice, bob = api(basic("alice")), api(basic("bob"))
    created = alice.post("/api/v1/user/repos", {"name": "demo", "auto_init": True}, format="json")
    assert created.status_code == 201, created.content
    forked = bob.post("/api/v1/repos/alice/demo/forks", {}, format="json")
    assert forked.status_code == 202, forked.content
    edited = alice.patch("/api/v1/repos/alice/demo", {"default_branch": "main"}, format="json")
    assert edited.status_code == 200
    assert bob.delete("/api/v1/repos/bob/demo").status_code == 204
    assert not git.repo_path("bob", "demo").exists()

    # A pull mirror's sync (run here in-process, as the worker runs it), from a local path.
    repo = Repository.objects.get(owner__name="alice", name="demo")
    mirror_repo = Repository.objects.create(owner=repo.owner, name="copy", is_mirror=True)
    git.clone_mirror(str(git.repo_path("alice", "demo")), git.repo_path("alice", "copy"),
                     timeout=60)  # fmt: skip
    mirror = Mirror.objects.create(repo=mirror_repo, interval_seconds=0)
    assert mirrors.request_sync(mirror.pk, sync_mirror.delay)
    mirrors.run_sync(mirror.pk)
    assert Mirror.objects.get(pk=mirror.pk).last_error == ""

    commands = [command for command, _ in git_calls]
    assert {"init", "commit-tree", "clone", "fetch"} <= set(commands), commands
    inside = [command for command, in_transaction in git_calls if in_transaction]
    assert inside == []


def test_a_fork_whose_clone_fails_leaves_no_record_no_directory_and_no_count(git_calls):
    owner("alice")
    owner("bob")
    alice, bob = api(basic("alice")), api(basic("bob"))
    assert alice.post("/api/v1/user/repos", {"name": "demo", "auto_init": True},
                      format="json").status_code == 201  # fmt: skip
    # The source's directory is gone from under its record: git cannot clone it.
    git.delete(git.repo_path("alice", "demo"))
    response = bob.post("/api/v1/repos/alice/demo/forks", {}, format="json")
    assert response.status_code == 500
    assert set(response.json()) == {"message", "url"}
    assert not Repository.objects.filter(owner__name="bob").exists()
    assert not git.repo_path("bob", "demo").exists()
    assert not git.repo_path("bob", "demo").parent.exists()
    assert Repository.objects.get(name="demo").num_forks == 0
    assert Owner.objects.get(name="bob").num_repos == 0
    # The name is free again once the source is back.
    assert ("clone", False) in git_calls


def test_a_creation_whose_git_fails_leaves_no_record_and_no_directory(settings):
    owner("alice")
    alice = api(basic("alice"))
    # Every git process times out at once: the first commit cannot be made.
    settings.CODEHOST_GIT_TIMEOUT = 1e-6
    response = alice.post("/api/v1/user/repos", {"name": "demo", "auto_init": True},
                          format="json")  # fmt: skip
    assert response.status_code == 500
    assert not Repository.objects.exists()
    assert not git.repo_path("alice", "demo").exists()
    assert Owner.objects.get(name="alice").num_repos == 0
    settings.CODEHOST_GIT_TIMEOUT = 60
    again = alice.post("/api/v1/user/repos", {"name": "demo", "auto_init": True}, format="json")
    assert again.status_code == 201, again.content
    assert (git.repo_path("alice", "demo") / "HEAD").exists()


@pytest.mark.parametrize("branch", ["a..b", "-x", "x.lock", "a//b", "x/", "a@{b", "a~b"])
def test_a_branch_name_git_refuses_is_422_before_anything_is_created(branch):
    owner("alice")
    response = api(basic("alice")).post(
        "/api/v1/user/repos", {"name": "demo", "default_branch": branch}, format="json"
    )
    assert response.status_code == 422, response.content
    assert response.json()["message"].startswith("[DefaultBranch]: ")
    assert not Repository.objects.exists()
    assert not git.repo_path("alice", "demo").exists()
