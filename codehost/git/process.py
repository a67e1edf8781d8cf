"""Running git safely: argument lists, never a shell, an isolated configuration, a timeout
on everything. Every git process of the code hosting service starts here (smart HTTP's
`http-backend` streams through `codehost.git.http`, on the same environment).

Callers run git only outside database transactions (a clone would hold the database's
locks for its whole length: SQLite's single write lock); services take care of that, this
package knows no database.
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
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
PR_SET_PDEATHSIG = 1


class GitError(Exception):
    """A git command failed; the message is git's stderr."""


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
