"""What a repository holds and points at: its branches and tags, HEAD, its origin.

The common answers are read from the files ref store directly (packed-refs, loose refs,
the HEAD file), which saves a git process per migration and sync; git answers for any
other ref store.
"""

import os
from pathlib import Path

from codehost.git import process
from codehost.git.process import GitError


def refs(path: Path) -> dict[str, str]:
    """{ref name: object id} of branches and tags."""
    output = process.run(
        ["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags"], cwd=path
    )
    pairs = (line.split(" ", 1) for line in output.decode().splitlines() if line)
    return {name: oid for name, oid in pairs}


def is_empty(path: Path) -> bool:
    """No branch and no tag."""
    if not (path / "refs").is_dir() or (path / "reftable").exists():
        return not refs(path)
    try:
        packed = (path / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        packed = ""
    for line in packed.splitlines():
        _, _, name = line.partition(" ")
        if not line.startswith(("#", "^")) and name.startswith(("refs/heads/", "refs/tags/")):
            return False
    return not any(
        files for kind in ("heads", "tags") for _, _, files in os.walk(path / "refs" / kind)
    )


def default_branch(path: Path) -> str:
    """The branch HEAD points at ("" when HEAD is detached).

    Read from the HEAD file (the files ref store's format, "ref: refs/heads/<name>");
    `git symbolic-ref` answers otherwise.
    """
    try:
        head = (path / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        head = ""
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    if len(head) in (40, 64):
        return ""
    try:
        ref = process.run(["symbolic-ref", "--quiet", "HEAD"], cwd=path).decode().strip()
    except GitError:
        return ""
    return ref.removeprefix("refs/heads/")


def set_default_branch(path: Path, branch: str) -> None:
    """Point HEAD at `branch` (which must exist: the caller checks `refs`)."""
    process.run(["symbolic-ref", "HEAD", f"refs/heads/{branch}"], cwd=path)


def origin_url(path: Path) -> str:
    """The address a mirror fetches from ("" when it has none)."""
    try:
        return process.run(["config", "--get", "remote.origin.url"], cwd=path).decode().strip()
    except GitError:
        return ""
