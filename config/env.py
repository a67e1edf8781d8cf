"""Reading settings from the environment: the only source of configuration."""

import os
from pathlib import Path

# What switches a boolean setting on (any case); anything else is off. Not the Go
# services' boolean words (swag.ConvertBool, strconv.ParseBool): settings are our own.
TRUE_WORDS = {"1", "true", "yes", "on"}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in TRUE_WORDS


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    value = os.environ.get(name, "")
    items = [item.strip() for item in value.split(",") if item.strip()]
    return items or list(default or [])


def data_dir(base_dir: Path) -> Path:
    path = Path(os.environ.get("DATA_DIR") or base_dir / "var").resolve()
    # The owner's alone: it holds the database (password hashes, app client secrets),
    # the generated secret key, blobs and repositories, all created with the usual umask.
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def secret_key(directory: Path) -> str:
    """SECRET_KEY from the environment, else one generated once and kept in DATA_DIR."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    key_file = directory / "secret_key"
    if not key_file.exists():
        from django.utils.crypto import get_random_string

        # Processes starting together on a new DATA_DIR each write a whole key aside and
        # link it into place: the first link wins, and nobody reads a half-written key.
        draft = directory / f".secret_key.{os.getpid()}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(get_random_string(64))
        try:
            os.link(draft, key_file)
        except FileExistsError:
            pass
        finally:
            os.unlink(draft)
    return key_file.read_text().strip()
