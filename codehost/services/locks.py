"""Row locks that writes of a repository's dependent rows take first."""

from codehost.errors import NotFound
from codehost.models import Repository


def lock_repository(repo: Repository) -> None:
    """The repository's row locked until the transaction ends (SQLite: the IMMEDIATE
    transaction holds the write lock), NotFound when a concurrent deletion took it: a
    collaborator, star or topic written for a repository deleted meanwhile failed its
    foreign key (or matched no row) at commit, a 500."""
    locked = Repository.objects.select_for_update(of=("self",)).filter(pk=repo.pk)
    if locked.values_list("pk").first() is None:
        raise NotFound()
