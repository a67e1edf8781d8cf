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


def git_cli(*args, cwd=None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.parametrize("packed", [False, True])
def test_is_empty_sees_branches_and_tags_loose_or_packed(git_root, packed):
    path = git.repo_path("alice", "refs")
    git.init_bare(path, "main")
    commit = git.initial_commit(path, "main", [git.InitialFile("a", "a\n")], ("A", "a@x"))
    git_cli("update-ref", "-d", "refs/heads/main", cwd=path)
    # Other refs (notes, pull heads) do not make a repository non-empty, for git neither.
    git_cli("update-ref", "refs/notes/commits", commit, cwd=path)
    assert git.is_empty(path) and not git.refs(path)
    git_cli("update-ref", "refs/tags/v1", commit, cwd=path)
    if packed:
        git_cli("pack-refs", "--all", cwd=path)
        assert not (path / "refs" / "tags" / "v1").exists()
    assert not git.is_empty(path)
    git_cli("update-ref", "-d", "refs/tags/v1", cwd=path)
    assert git.is_empty(path)


def test_removing_origin_leaves_the_config_git_would(git_root, tmp_path):
    source = git.repo_path("alice", "source")
    git.init_bare(source, "main")
    git.initial_commit(source, "main", [git.InitialFile("a", "a\n")], ("A", "a@x"))
    ours, theirs = tmp_path / "ours.git", tmp_path / "theirs.git"
    for target in (ours, theirs):
        git.clone_mirror(str(source), target, timeout=30)
    git.remove_origin(ours)
    git_cli("remote", "remove", "origin", cwd=theirs)
    assert git_cli("config", "--list", "--local", cwd=ours) == git_cli(
        "config", "--list", "--local", cwd=theirs
    )
    assert "origin" not in (ours / "config").read_text()
    assert git_cli("remote", cwd=ours) == ""
    assert git.refs(ours) == git.refs(source)
