"""The files of an `auto_init` first commit: README, .gitignore and LICENSE templates shipped
in codehost/init_templates (Gitea's option names: readme `Default`, gitignore and license
names as in Gitea's lists)."""

from datetime import UTC, datetime
from pathlib import Path

from codehost.errors import Invalid, Rejected
from codehost.git import InitialFile

TEMPLATES = Path(__file__).resolve().parent / "init_templates"


def available(kind: str) -> list[str]:
    return sorted(path.name for path in (TEMPLATES / kind).iterdir())


def _read(kind: str, name: str) -> str | None:
    if name not in available(kind):
        return None
    return (TEMPLATES / kind / name).read_text()


def check_options(readme: str, gitignores: str, license_name: str) -> None:
    """Reject unknown template names before anything is created."""
    if readme and readme not in available("readme"):
        raise Rejected(
            "readme template does not exist, available templates: "
            f"[{' '.join(available('readme'))}]"
        )
    for name in _split(gitignores):
        if name not in available("gitignore"):
            raise Invalid(f"gitignore template does not exist [name: {name}]")
    if license_name and license_name not in available("license"):
        raise Invalid(f"license template does not exist [name: {license_name}]")


def _split(names: str) -> list[str]:
    return [name.strip() for name in (names or "").split(",") if name.strip()]


def initial_files(
    *, repo_name: str, description: str, owner: str, readme: str, gitignores: str, license_name: str
) -> list[InitialFile]:
    files = []
    if readme:
        text = _read("readme", readme)
        files.append(InitialFile("README.md", text.format(Name=repo_name, Description=description)))
    ignores = [_read("gitignore", name) for name in _split(gitignores)]
    if ignores:
        files.append(InitialFile(".gitignore", "\n".join(ignores)))
    if license_name:
        text = _read("license", license_name)
        year = datetime.now(UTC).year
        files.append(
            InitialFile("LICENSE", text.replace("{Year}", str(year)).replace("{Owner}", owner))
        )
    return files
