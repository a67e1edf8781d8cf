"""Collaborators, stars and topics written for a repository a concurrent request deletes.

Each write reads the repository, then writes rows naming it: a deletion in between failed
the foreign key at commit (or the update matched no row), a 500. The write now locks the
repository's row first: one that comes second answers 404, as for an unknown repository.
"""

from collections import Counter

import pytest

from codehost.errors import NotFound
from codehost.models import Collaboration, Owner, Repository, Star
from codehost.services import collaborators, repo_settings, repositories, stars
from tests.codehost.factories import UserFactory, owner_of
from tests.races import run_together


@pytest.mark.django_db(transaction=True)
def test_writes_for_a_repository_deleted_meanwhile_are_not_found(as_user, alice, bob):
    assert as_user(alice).post("/user/repos", {"name": "gone"}).status_code == 201
    stale = Repository.objects.select_related("owner").get(name="gone")
    repositories.delete_repo(Repository.objects.select_related("owner").get(name="gone"))

    with pytest.raises(NotFound):
        collaborators.add_collaborator(stale, owner_of(bob), "write")
    with pytest.raises(NotFound):
        stars.star(owner_of(bob), stale)
    with pytest.raises(NotFound):
        repo_settings.set_topics(stale, ["go"])

    assert not Collaboration.objects.exists() and not Star.objects.exists()
    assert Owner.objects.get(name="bob").num_stars == 0


@pytest.mark.django_db(transaction=True)
def test_clients_starring_and_sharing_repositories_as_they_are_deleted(as_user, alice):
    """Six clients star, add collaborators and set topics on four repositories while the
    owner deletes them: no 500, and the star counters match the rows left."""
    api = as_user(alice)
    users = [UserFactory(username=f"user{number}") for number in range(6)]
    for number in range(4):
        assert api.post("/user/repos", {"name": f"r{number}"}).status_code == 201

    def client(number: int) -> list[int]:
        own = as_user(users[number])
        statuses = []
        for round in range(4):
            name = f"r{round}"
            statuses.append(own.put(f"/user/starred/alice/{name}").status_code)
            statuses.append(
                api.put(
                    f"/repos/alice/{name}/collaborators/{users[number].username}",
                    {"permission": "read"},
                ).status_code
            )
            statuses.append(api.put(f"/repos/alice/{name}/topics", {"topics": ["x"]}).status_code)
        return statuses

    def owner() -> list[int]:
        return [api.delete(f"/repos/alice/r{number}").status_code for number in range(4)]

    deleted, *clients = run_together(
        [owner, *(lambda number=number: client(number) for number in range(6))]
    )
    assert deleted == [204] * 4
    statuses = Counter(status for got in clients for status in got)
    assert set(statuses) <= {204, 404}, statuses
    assert not Repository.objects.exists()
    for user in Owner.objects.filter(name__startswith="user"):
        assert user.num_stars == Star.objects.filter(user=user).count()


@pytest.mark.django_db(transaction=True)
def test_deleting_a_starred_repository_takes_its_star_off_each_count(as_user, alice, bob):
    assert as_user(alice).post("/user/repos", {"name": "liked"}).status_code == 201
    assert as_user(alice).post("/user/repos", {"name": "kept"}).status_code == 201
    for name in ("liked", "kept"):
        assert as_user(bob).put(f"/user/starred/alice/{name}").status_code == 204
    assert as_user(bob).get("/user").json()["starred_repos_count"] == 2

    assert as_user(alice).delete("/repos/alice/liked").status_code == 204

    assert as_user(bob).get("/user").json()["starred_repos_count"] == 1
