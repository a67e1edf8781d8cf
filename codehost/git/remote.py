"""Talking to a remote, for migrations and pull mirrors: cloning, finding a wiki next to
the address, fetching.

Remote credentials reach git through the environment only (a credential helper that
prints two variables), never argv, a URL, the repository's config or a log line.
"""

from pathlib import Path

from codehost.git import process
from codehost.git.process import GitError

CREDENTIAL_HELPER = (
    '!f() { test "$1" = get && printf "username=%s\\npassword=%s\\n" '
    '"$CODEHOST_REMOTE_USERNAME" "$CODEHOST_REMOTE_PASSWORD"; }; f'
)
# Schemes a migration may make git speak (no ext::, fd::, ...).
REMOTE_PROTOCOLS = "http:https:git:file"
# Gitea's commonWikiURLSuffixes, tried in order on the address without its ".git".
WIKI_SUFFIXES = (".wiki.git", ".git/wiki")
REMOTE_ORIGIN_SECTION = '[remote "origin"]'


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
    process.run_remote(
        ["clone", "--mirror", "--quiet", "--config", accept_pushes, "--", source, str(target)],
        env=remote_env(username, password, pinned),
        timeout=timeout,
    )


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
            process.run_remote(
                ["ls-remote", "--quiet", "--heads", "--", candidate, "HEAD"],
                env=remote_env(username, password, pinned),
                timeout=timeout,
            )
        except GitError:
            continue
        return candidate
    return None


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
    process.run_remote(args, cwd=path, env=remote_env(username, password, pinned), timeout=timeout)
