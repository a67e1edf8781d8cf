"""Repositories on disk: where they live, creating one (empty, with a first commit, or as a
fork), moving, deleting and measuring it.

Repositories are bare, at CODEHOST_GIT_ROOT/<owner>/<repo>.git (lower-cased names, so a
case-only rename keeps the directory).
"""

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from codehost.git import process
from codehost.git.process import GitError


def root() -> Path:
    return Path(settings.CODEHOST_GIT_ROOT)


def repo_path(owner: str, name: str) -> Path:
    return root() / owner.lower() / f"{name.lower()}.git"


# A migrated wiki lives inside its repository's directory (git ignores the extra folder),
# so moving, renaming or deleting the repository takes its wiki along in the same step.
WIKI_DIR = "wiki.git"


def wiki_path(repository: Path) -> Path:
    return repository / WIKI_DIR


def init_bare(path: Path, default_branch: str) -> None:
    """Create an empty bare repository; fails if the directory exists (no adoption)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir()
    process.run(["init", "--bare", "--quiet", f"--initial-branch={default_branch}", str(path)])
    # Smart HTTP pushes run through http-backend; we authorize them ourselves.
    process.run(["config", "http.receivepack", "true"], cwd=path)


@dataclass
class InitialFile:
    name: str
    content: str


def initial_commit(
    path: Path,
    branch: str,
    files: list[InitialFile],
    author: tuple[str, str],
    message: str = "Initial commit",
) -> str:
    """Commit `files` as the first commit of `branch` in a bare repository; the commit id.

    Built with plumbing (hash-object, mktree, commit-tree) so no work tree is needed.
    """
    run = process.run
    entries = []
    for item in files:
        blob = run(["hash-object", "-w", "--stdin"], cwd=path, input=item.content.encode())
        entries.append(f"100644 blob {blob.decode().strip()}\t{item.name}")
    tree = run(["mktree"], cwd=path, input=("\n".join(entries) + "\n").encode()).decode().strip()
    name, email = author
    identity = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }
    commit = run(["commit-tree", tree, "-m", message], cwd=path, env=identity).decode().strip()
    run(["update-ref", f"refs/heads/{branch}", commit], cwd=path)
    return commit


def fork(source: Path, target: Path) -> None:
    """A bare copy of `source` (all branches and tags) at `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    process.run(["clone", "--bare", "--quiet", "--no-local", str(source), str(target)])
    process.run(["config", "http.receivepack", "true"], cwd=target)
    process.run(["config", "--unset", "remote.origin.url"], cwd=target)


def move(source: Path, target: Path) -> None:
    if source == target:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        raise GitError(f"{target.name} already exists on disk")
    source.rename(target)


def delete(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    # Leave no empty owner directory behind.
    with contextlib.suppress(OSError):
        path.parent.rmdir()


def size(path: Path) -> int:
    """Bytes used by the repository directory."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        if dirpath == str(path) and WIKI_DIR in dirnames:
            # As Gitea's, a repository's size leaves its wiki out.
            dirnames.remove(WIKI_DIR)
        for filename in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, filename)).st_size
            except OSError:
                continue
    return total
