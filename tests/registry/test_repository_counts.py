"""The all-repositories list's X-Total-Count, the statistics and the projects' repo_count
add up per project repository counts kept by database triggers
(registry.models.ProjectRepositoryCount): they must stay the exact number of visible
repositories through every way a repository is created, moved or deleted, whoever asks."""

import pytest
from django.db.models import Count

from registry.models import Project, ProjectRepositoryCount, Repository
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, push

pytestmark = pytest.mark.django_db


def totals(*clients) -> list[int]:
    return [int(c.get("/api/v2.0/repositories?page_size=1")["X-Total-Count"]) for c in clients]


def kept_counts() -> dict[int, int]:
    rows = ProjectRepositoryCount.objects.exclude(repository_count=0)
    return dict(rows.values_list("project_id", "repository_count"))


def real_counts() -> dict[int, int]:
    rows = Repository.objects.order_by().values("project").annotate(n=Count("pk"))
    return {row["project"]: row["n"] for row in rows}


def test_total_follows_creations_moves_and_deletions(anon, alice, bob, admin_client):
    public = ProjectFactory(name="pub", owner=alice, public=True)
    private = ProjectFactory(name="priv", owner=alice)
    MemberFactory(project=private, user=bob, role=3)
    bob_client, alice_client = client_for(bob), client_for(alice)
    clients = (admin_client, bob_client, alice_client, anon)
    push(public, "one")
    push(private, "two")
    Repository.objects.bulk_create(
        Repository(project=public, name=f"pub/bulk{n}") for n in range(3)
    )
    assert totals(*clients) == [5, 5, 5, 4]
    stats = admin_client.get("/api/v2.0/statistics").json()
    assert (stats["total_repo_count"], stats["public_repo_count"]) == (5, 4)
    assert bob_client.get("/api/v2.0/statistics").json()["private_repo_count"] == 1
    listed = admin_client.get("/api/v2.0/projects").json()
    assert {p["name"]: p["repo_count"] for p in listed} == {"pub": 4, "priv": 1}
    Repository.objects.filter(name="pub/bulk0").update(project=private)
    assert totals(*clients) == [5, 5, 5, 3]
    Repository.objects.filter(name__startswith="pub/bulk").delete()
    Repository.objects.get(name="priv/two").delete()
    assert totals(*clients) == [1, 1, 1, 1]
    assert kept_counts() == real_counts()
    private.delete()
    assert not ProjectRepositoryCount.objects.filter(project_id=private.pk).exists()
    Project.objects.get(pk=public.pk).delete()
    assert totals(*clients) == [0, 0, 0, 0]
    assert kept_counts() == real_counts() == {}


def test_total_with_q_counts_the_matching_repositories(alice_client, alice):
    project = ProjectFactory(name="app", owner=alice)
    for name in ("alpha", "beta", "gamma"):
        push(project, name)
    listing = alice_client.get("/api/v2.0/repositories?q=name%3D~ta&page_size=1")
    assert listing["X-Total-Count"] == "1"
    assert [r["name"] for r in listing.json()] == ["app/beta"]
    assert alice_client.get("/api/v2.0/repositories?page_size=1")["X-Total-Count"] == "3"


def test_total_reads_the_kept_counts_in_constant_queries(alice, bob, django_assert_max_num_queries):
    for n in range(6):
        project = ProjectFactory(name=f"p{n}", owner=alice, public=n % 2 == 0)
        if n == 1:
            MemberFactory(project=project, user=bob, role=3)
        for r in range(n + 1):
            push(project, f"r{r}")
    bob_client = client_for(bob)
    bob_client.get("/api/v2.0/repositories")
    with django_assert_max_num_queries(5) as queries:
        listing = bob_client.get("/api/v2.0/repositories?page_size=2&page=2")
    assert not any("COUNT(*)" in query["sql"] for query in queries.captured_queries)
    assert listing["X-Total-Count"] == str(1 + 3 + 5 + 2)
    assert len(listing.json()) == 2
