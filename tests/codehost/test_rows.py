"""Repository lists render from `.values()` rows: times written by the database (its
SQLite and PostgreSQL forms) read as `gitea_time` writes them, and a page with forks,
mirrors and private owners costs at most the same queries whatever its size, for a user and for a
site admin."""

from datetime import UTC, datetime

import pytest

from codehost.api.serializers.fields import UNIX_ZERO_TIME, GiteaTime, gitea_time
from codehost.models import Mirror, OrgMembership, Repository
from tests.codehost.factories import OrgFactory, RepositoryFactory, owner_of

pytestmark = pytest.mark.django_db

TIMES = [
    datetime(2026, 1, 2, 3, 4, 5, 999999, tzinfo=UTC),
    datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC),
    datetime(1999, 2, 28, 0, 0, 0, 1, tzinfo=UTC),
    datetime(1, 1, 1, 0, 0, 0, tzinfo=UTC),
]


@pytest.mark.parametrize("moment", TIMES)
def test_the_database_writes_a_time_as_gitea_time_does(moment):
    repo = RepositoryFactory()
    Repository.objects.filter(pk=repo.pk).update(updated_at=moment, archived_at=moment)
    row = Repository.objects.filter(pk=repo.pk).values(
        updated=GiteaTime("updated_at"), archived=GiteaTime("archived_at")
    )[0]
    assert row["updated"] == row["archived"] == gitea_time(moment)


def test_a_missing_time_is_null_and_the_wire_shows_the_zero_value(as_user, alice):
    RepositoryFactory(owner=owner_of(alice), name="live")
    row = Repository.objects.values(archived=GiteaTime("archived_at"))[0]
    assert row["archived"] is None
    (repo,) = as_user(alice).get("/repos/search?q=live").json()["data"]
    assert repo["archived_at"] == UNIX_ZERO_TIME
    assert repo["created_at"] == gitea_time(Repository.objects.get(name="live").created_at)


@pytest.fixture
def mixed(alice, bob):
    """60 repositories of several owners (a private org alice belongs to among them), a
    third forks of the first, every fifth a mirror."""
    owners = [owner_of(alice), owner_of(bob), OrgFactory(), OrgFactory(visibility="private")]
    OrgMembership.objects.create(org=owners[3], user=owners[0])
    source = RepositoryFactory(owner=owners[0], name="source")
    for i in range(60):
        repo = RepositoryFactory(
            owner=owners[i % len(owners)],
            name=f"r{i:02}",
            is_fork=i % 3 == 0,
            parent=source if i % 3 == 0 else None,
            is_mirror=i % 5 == 0,
        )
        if repo.is_mirror:
            Mirror.objects.create(repo=repo, interval_seconds=600)


@pytest.mark.parametrize("who", ["alice", "root"])
def test_a_page_costs_the_same_queries_whatever_its_size(
    as_user, mixed, admin, alice, who, django_assert_max_num_queries
):
    api = as_user(admin if who == "root" else alice)
    api.get("/repos/search?limit=1")  # warm the Basic-auth cache
    for limit in (2, 50):
        # The account, its namespace, count, page, forks' parents, owners, mirror rows, team
        # links, collaborations, memberships of the private organizations on the page.
        with django_assert_max_num_queries(10):
            response = api.get(f"/repos/search?q=r&limit={limit}")
        assert len(response.json()["data"]) == limit
    page = as_user(admin if who == "root" else alice).get("/repos/search?q=r&limit=50")
    forks = [repo for repo in page.json()["data"] if repo["fork"]]
    assert forks and all(repo["parent"]["full_name"] == "alice/source" for repo in forks)
    mirrors = [repo for repo in page.json()["data"] if repo["mirror"]]
    assert mirrors and all(repo["mirror_interval"] == "10m0s" for repo in mirrors)
