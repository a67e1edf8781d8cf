"""Row locks that writes of a repository's dependent rows take first."""

from codehost.errors import NotFound
from codehost.models import Repository


def lock_repository(repo: Repository) -> None:
    """The repository's row locked until the transaction ends (SQLite: the IMMEDIATE
    transaction holds the write lock), NotFound when a concurrent deletion took it: a
    collaborator, star or topic written for a repository deleted meanwhile failed its
    foreign key (or matched no row) at commit, a 500."""
    if locked_name(repo.pk) is None:
        raise NotFound()


def locked_name(repo_id: int) -> str | None:
    """The repository's name as it is now, its row locked until the transaction ends;
    None once deleted. Renames, deletions and a creation's final move take it, so each
    sees the name the one before it left (and the directory under it)."""
    return (
        Repository.objects.select_for_update(of=("self",))
        .filter(pk=repo_id)
        .values_list("name", flat=True)
        .first()
    )
