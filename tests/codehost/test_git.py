"""codehost.git against the real git CLI."""

import subprocess

import pytest

from codehost import git


@pytest.fixture
def git_root(settings, tmp_path):
    settings.CODEHOST_GIT_ROOT = tmp_path / "git"
    return settings.CODEHOST_GIT_ROOT


def test_init_bare_is_an_empty_repository_on_the_default_branch(git_root):
    path = git.repo_path("Alice", "Demo")
    git.init_bare(path, "main")
    assert path == git_root / "alice" / "demo.git"
    assert git.is_empty(path)
    head = subprocess.run(
        ["git", "symbolic-ref", "HEAD"], cwd=path, capture_output=True, text=True, check=True
    )
    assert head.stdout.strip() == "refs/heads/main"
    with pytest.raises(FileExistsError):
        git.init_bare(path, "main")


def test_initial_commit_holds_the_files(git_root, tmp_path):
    path = git.repo_path("alice", "demo")
    git.init_bare(path, "trunk")
    files = [git.InitialFile("README.md", "# demo\n"), git.InitialFile(".gitignore", "*.pyc\n")]
    commit = git.initial_commit(path, "trunk", files, ("Alice", "alice@example.com"))
    assert git.refs(path) == {"refs/heads/trunk": commit}
    assert not git.is_empty(path)
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(path), str(checkout)], check=True)
    assert (checkout / "README.md").read_text() == "# demo\n"
    assert (checkout / ".gitignore").read_text() == "*.pyc\n"
    assert git.size(path) > 0


def test_move_and_delete(git_root):
    source = git.repo_path("alice", "old")
    git.init_bare(source, "main")
    target = git.repo_path("alice", "new")
    git.move(source, target)
    assert not source.exists() and git.is_empty(target)
    git.delete(target)
    assert not target.exists()
    assert not (git_root / "alice").exists()


def test_failed_command_raises_with_stderr(git_root):
    git_root.mkdir()
    with pytest.raises(git.GitError, match="not a git repository"):
        git.refs(git_root)
