"""The only module that runs git: argument lists, never a shell, a timeout on everything.

Repositories are bare, at CODEHOST_GIT_ROOT/<owner>/<repo>.git (lower-cased names, so a
case-only rename keeps the directory).
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

GIT = "git"
# Identity and config isolation: a server's git must not read the service account's
# ~/.gitconfig nor the system one.
BASE_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "HOME": "/nonexistent",
    "LANG": "C",
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
}


class GitError(Exception):
    """A git command failed; the message is git's stderr."""


def root() -> Path:
    return Path(settings.CODEHOST_GIT_ROOT)


def repo_path(owner: str, name: str) -> Path:
    return root() / owner.lower() / f"{name.lower()}.git"


# A migrated wiki lives inside its repository's directory (git ignores the extra folder),
# so moving, renaming or deleting the repository takes its wiki along in the same step.
WIKI_DIR = "wiki.git"


def wiki_path(repository: Path) -> Path:
    return repository / WIKI_DIR


def run(
    args: list[str],
    *,
    cwd: Path | None = None,
    input: bytes | None = None,
    env: dict | None = None,
    timeout: int | None = None,
) -> bytes:
    """Run `git <args>`; stdout, or GitError with stderr."""
    try:
        result = subprocess.run(
            [GIT, *args],
            cwd=cwd,
            input=input,
            env={**BASE_ENV, **(env or {})},
            capture_output=True,
            timeout=timeout or settings.CODEHOST_GIT_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} timed out") from exc
    if result.returncode:
        raise GitError(result.stderr.decode(errors="replace").strip())
    return result.stdout


def init_bare(path: Path, default_branch: str) -> None:
    """Create an empty bare repository; fails if the directory exists (no adoption)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir()
    run(["init", "--bare", "--quiet", f"--initial-branch={default_branch}", str(path)])
    # Smart HTTP pushes run through http-backend; we authorize them ourselves.
    run(["config", "http.receivepack", "true"], cwd=path)


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


def refs(path: Path) -> dict[str, str]:
    """{ref name: object id} of branches and tags."""
    output = run(
        ["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags"], cwd=path
    )
    pairs = (line.split(" ", 1) for line in output.decode().splitlines() if line)
    return {name: oid for name, oid in pairs}


def is_empty(path: Path) -> bool:
    """No branch and no tag. Read from the files ref store (packed-refs, then loose refs),
    which saves a git process per migration; git answers for any other ref store."""
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


def fork(source: Path, target: Path) -> None:
    """A bare copy of `source` (all branches and tags) at `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    run(["clone", "--bare", "--quiet", "--no-local", str(source), str(target)])
    run(["config", "http.receivepack", "true"], cwd=target)
    run(["config", "--unset", "remote.origin.url"], cwd=target)


@dataclass
class CGIResponse:
    status: int
    headers: list[tuple[str, str]]
    body: Iterator[bytes]


def http_backend(
    path_info: str, cgi_env: dict, body: Iterator[bytes], on_finish=None
) -> CGIResponse:
    """Run `git http-backend` for one smart HTTP request, streaming both ways.

    `path_info` is `/<owner>/<repo>.git/<rest>` under CODEHOST_GIT_ROOT; the request body
    is fed from a thread while the response is read lazily; the process is killed after
    CODEHOST_GIT_TIMEOUT. `on_finish(returncode)` runs once the response is consumed.
    """
    env = {
        **BASE_ENV,
        **cgi_env,
        "GIT_PROJECT_ROOT": str(root()),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": path_info,
    }
    process = subprocess.Popen(
        [GIT, "http-backend"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    timer = threading.Timer(settings.CODEHOST_GIT_TIMEOUT, process.kill)
    timer.daemon = True
    timer.start()

    def feed():
        try:
            for chunk in body:
                process.stdin.write(chunk)
        except (BrokenPipeError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                process.stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    status, headers = _read_cgi_headers(process.stdout)

    def stream():
        try:
            while chunk := process.stdout.read1(65536):
                yield chunk
        finally:
            process.stdout.close()
            feeder.join(timeout=5)
            returncode = process.wait()
            timer.cancel()
            if on_finish is not None:
                on_finish(returncode)

    return CGIResponse(status=status, headers=headers, body=stream())


def _read_cgi_headers(stdout) -> tuple[int, list[tuple[str, str]]]:
    status = 200
    headers = []
    while True:
        line = stdout.readline()
        if not line or line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("latin-1").partition(":")
        value = value.strip()
        if name.lower() == "status":
            status = int(value.split()[0])
        else:
            headers.append((name.strip(), value))
    return status, headers


# --- migrations and pull mirrors ------------------------------------------------------
# Remote credentials reach git through the environment only (a credential helper that
# prints two variables), never argv, a URL, the repository's config or a log line.
CREDENTIAL_HELPER = (
    '!f() { test "$1" = get && printf "username=%s\\npassword=%s\\n" '
    '"$CODEHOST_REMOTE_USERNAME" "$CODEHOST_REMOTE_PASSWORD"; }; f'
)
# Schemes a migration may make git speak (no ext::, fd::, ...).
REMOTE_PROTOCOLS = "http:https:git:file"
PR_SET_PDEATHSIG = 1


def remote_env(
    username: str = "", password: str = "", pinned: tuple[tuple[str, str], ...] = ()
) -> dict:
    """Environment of a git talking to a remote. Redirects are never followed: the address
    was checked against the allow/block rules, a redirect's target was not. `pinned` is the
    configuration that makes git connect to the checked addresses (remote_address.pin_remote)."""
    env = {"GIT_ALLOW_PROTOCOL": REMOTE_PROTOCOLS}
    config = [("http.followRedirects", "false"), *pinned]
    if username or password:
        # The empty helper first resets any helper configured elsewhere.
        config += [("credential.helper", ""), ("credential.helper", CREDENTIAL_HELPER)]
        env.update({"CODEHOST_REMOTE_USERNAME": username, "CODEHOST_REMOTE_PASSWORD": password})
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


# The remote git dies with the worker that started it (SIGKILL on the parent's death, a
# Linux prctl), so a killed worker leaves no git writing into a directory being cleaned up.
# util-linux's setpriv sets it before exec'ing git; a `preexec_fn` would do the same but
# makes Python fork() the whole worker instead of vfork(), ~15 ms per git process.
SETPRIV = shutil.which("setpriv")
DIE_WITH_PARENT = [SETPRIV, "--pdeathsig", "KILL", "--"] if SETPRIV else []


def _die_with_parent() -> None:
    """Where setpriv is missing: the same prctl, in the child before exec."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def run_remote(args: list[str], *, cwd: Path | None = None, env: dict, timeout: int) -> None:
    """`git <args>` talking to a remote: own process group, killed whole on timeout. It
    runs at the calling thread's CPU priority (mirror syncs lower theirs, see priority)."""
    process = subprocess.Popen(
        [*DIE_WITH_PARENT, GIT, *args],
        cwd=cwd,
        env={**BASE_ENV, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=None if SETPRIV else _die_with_parent,
    )
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise GitError(f"git {args[0]} timed out after {timeout} seconds") from exc
    if process.returncode:
        raise GitError(stderr.decode(errors="replace").strip())


def clone_mirror(
    source: str,
    target: Path,
    *,
    timeout: int,
    username: str = "",
    password: str = "",
    pinned: tuple[tuple[str, str], ...] = (),
) -> None:
    """A bare `--mirror` clone of `source` (URL or local path) into the new `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # Smart HTTP pushes run through http-backend; we authorize them ourselves.
    accept_pushes = "http.receivepack=true"
    run_remote(
        ["clone", "--mirror", "--quiet", "--config", accept_pushes, "--", source, str(target)],
        env=remote_env(username, password, pinned),
        timeout=timeout,
    )


# Gitea's commonWikiURLSuffixes, tried in order on the address without its ".git".
WIKI_SUFFIXES = (".wiki.git", ".git/wiki")


def find_wiki_remote(
    source: str,
    *,
    timeout: int,
    username: str = "",
    password: str = "",
    pinned: tuple[tuple[str, str], ...] = (),
) -> str | None:
    """The first wiki address next to `source` that answers git (Gitea's WikiRemoteURL)."""
    base = source.removesuffix(".git")
    for suffix in WIKI_SUFFIXES:
        candidate = base + suffix
        try:
            run_remote(
                ["ls-remote", "--quiet", "--heads", "--", candidate, "HEAD"],
                env=remote_env(username, password, pinned),
                timeout=timeout,
            )
        except GitError:
            continue
        return candidate
    return None


REMOTE_ORIGIN_SECTION = '[remote "origin"]'


def remove_origin(path: Path) -> None:
    """A migrated (not mirrored) repository forgets where it came from, as Gitea's does.

    `git clone --mirror` has just written the config and a mirror has no remote-tracking
    refs nor branch settings, so dropping the section from the file is all `git remote
    remove origin` would do here, without its process. Written beside, then renamed."""
    config = path / "config"
    kept, inside = [], False
    for line in config.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.lstrip().startswith("["):
            inside = line.strip() == REMOTE_ORIGIN_SECTION
        if not inside:
            kept.append(line)
    draft = path / "config.draft"
    draft.write_text("".join(kept), encoding="utf-8")
    draft.replace(config)


def origin_url(path: Path) -> str:
    """The address a mirror fetches from ("" when it has none)."""
    try:
        return run(["config", "--get", "remote.origin.url"], cwd=path).decode().strip()
    except GitError:
        return ""


def fetch_mirror(
    path: Path,
    *,
    timeout: int,
    prune: bool,
    username: str = "",
    password: str = "",
    pinned: tuple[tuple[str, str], ...] = (),
) -> None:
    """Update a `--mirror` clone from its origin; on failure the refs stay as they were."""
    # --atomic: either every ref moves or none does.
    args = ["fetch", "--quiet", "--atomic", "--prune" if prune else "--no-prune", "origin"]
    run_remote(args, cwd=path, env=remote_env(username, password, pinned), timeout=timeout)


def default_branch(path: Path) -> str:
    """The branch HEAD points at ("" when HEAD is detached).

    Read from the HEAD file (the files ref store's format, "ref: refs/heads/<name>"), which
    saves a git process per migration and sync; `git symbolic-ref` answers otherwise.
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
        ref = run(["symbolic-ref", "--quiet", "HEAD"], cwd=path).decode().strip()
    except GitError:
        return ""
    return ref.removeprefix("refs/heads/")
