"""Finding the service binaries, installing their Debian packages when we are root."""

import fcntl
import glob
import os
import shutil
import subprocess

# `make test` runs both backends at once; their installs must not race for dpkg's lock.
INSTALL_LOCK = "/tmp/project-test-apt.lock"


class MissingService(RuntimeError):
    pass


def find_binary(name: str, extra_globs: tuple[str, ...] = ()) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for pattern in extra_globs:
        matches = sorted(glob.glob(pattern))
        if matches:
            return matches[-1]
    return None


def require(binaries: dict[str, tuple[str, tuple[str, ...]]]) -> dict[str, str]:
    """Paths of the binaries {name: (debian_package, extra_globs)}, installing what is missing.

    Without root, fails with the exact command to run: tests never skip a missing service.
    """
    paths = {name: find_binary(name, globs) for name, (_, globs) in binaries.items()}
    missing = sorted({binaries[name][0] for name, path in paths.items() if path is None})
    if missing:
        command = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
        if os.geteuid() != 0:
            raise MissingService(
                "The test suite needs these Debian packages; install them with:\n"
                f"    sudo apt-get update && sudo {' '.join(command)}"
            )
        with open(INSTALL_LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            paths = {name: find_binary(name, globs) for name, (_, globs) in binaries.items()}
            if any(path is None for path in paths.values()):
                env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
                subprocess.run(
                    ["apt-get", "update", "-qq"], check=True, env=env, stdout=subprocess.DEVNULL
                )
                subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
                paths = {name: find_binary(name, globs) for name, (_, globs) in binaries.items()}
        still = [name for name, path in paths.items() if path is None]
        if still:
            raise MissingService(f"installed {missing} but still cannot find {still}")
    return paths
