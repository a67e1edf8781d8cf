"""Git for the code hosting service, the only package that runs it, by concern:

- `process`: running git safely (argument lists, an isolated configuration, timeouts, a
  remote git in its own process group);
- `repos`: repositories on disk (paths, creation, a first commit, forks, moves, size);
- `refs`: branches, tags, HEAD and origin of a repository;
- `remote`: migrations and pull mirrors (clone, wiki discovery, fetch; credentials through
  the environment only);
- `http`: smart HTTP through `git http-backend`.

Callers use the names below (`from codehost import git; git.init_bare(...)`) and run
none of them inside a database transaction.
"""

from codehost.git.http import CGIResponse, http_backend
from codehost.git.process import GitError
from codehost.git.refs import default_branch, is_empty, origin_url, refs, set_default_branch
from codehost.git.remote import (
    clone_mirror,
    fetch_mirror,
    find_wiki_remote,
    remote_env,
    remove_origin,
)
from codehost.git.repos import (
    WIKI_DIR,
    InitialFile,
    delete,
    fork,
    init_bare,
    initial_commit,
    move,
    repo_path,
    root,
    size,
    wiki_path,
)

__all__ = [
    "WIKI_DIR",
    "CGIResponse",
    "GitError",
    "InitialFile",
    "clone_mirror",
    "default_branch",
    "delete",
    "fetch_mirror",
    "find_wiki_remote",
    "fork",
    "http_backend",
    "init_bare",
    "initial_commit",
    "is_empty",
    "move",
    "origin_url",
    "refs",
    "remote_env",
    "remove_origin",
    "repo_path",
    "root",
    "set_default_branch",
    "size",
    "wiki_path",
]
