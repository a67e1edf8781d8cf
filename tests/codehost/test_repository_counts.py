"""A search without filters answers X-Total-Count from per owner repository counts kept by
database triggers (codehost.models.OwnerRepositoryCount) plus the repositories seen only
through a collaboration or a team's link: the total must stay exactly what the caller can
see, for every kind of caller, through creations, visibility changes, transfers and
deletions."""

import pytest
from django.db.models import Count

from codehost.models import (
    Collaboration,
    OrgMembership,
    OwnerRepositoryCount,
    Repository,
    Team,
    TeamMember,
    TeamRepo,
)
from tests.codehost.factories import OrgFactory, RepositoryFactory, UserFactory, owner_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(alice, bob, admin):
    """Orgs of each visibility with public and private repositories; bob collaborates on
    one private repository and sits in a team linked to another; carol is a plain member
    of the private org; alice owns her own."""
    carol = UserFactory(username="carol")
    orgs = {v: OrgFactory(name=f"org-{v}", visibility=v) for v in ("public", "limited", "private")}
    for visibility, org in orgs.items():
        for n in range(3):
            RepositoryFactory(owner=org, name=f"{visibility}-{n}", private=n == 2)
    RepositoryFactory(owner=owner_of(alice), name="mine")
    RepositoryFactory(owner=owner_of(alice), name="mine-hidden", private=True)
    Collaboration.objects.create(repo=Repository.objects.get(name="limited-2"), user=owner_of(bob))
    team = Team.objects.create(org=orgs["private"], name="some", units={})
    TeamMember.objects.create(team=team, user=owner_of(bob))
    TeamRepo.objects.create(team=team, repo=Repository.objects.get(name="private-2"))
    OrgMembership.objects.create(org=orgs["private"], user=owner_of(carol))
    return {"orgs": orgs, "callers": [None, admin, alice, bob, carol]}


def check_totals(as_user, callers) -> list[int]:
    """Each caller's X-Total-Count, checked against the rows the search itself lists."""
    totals = []
    for user in callers:
        for query in ("", "?private=false"):
            response = as_user(user).get(f"/repos/search{query}{'&' if query else '?'}limit=50")
            assert response.status_code == 200, response.content
            assert int(response["X-Total-Count"]) == len(response.json()["data"]), (user, query)
        totals.append(int(response["X-Total-Count"]))
    rows = OwnerRepositoryCount.objects.exclude(repository_count=0)
    kept = {(r.owner_id, r.private): r.repository_count for r in rows}
    real = Repository.objects.order_by().values("owner", "private").annotate(n=Count("pk"))
    assert kept == {(r["owner"], r["private"]): r["n"] for r in real}
    return totals


def test_totals_follow_creations_visibility_transfers_and_deletions(as_user, world):
    callers, orgs = world["callers"], world["orgs"]
    before = check_totals(as_user, callers)
    Repository.objects.filter(name="public-0").update(private=True)
    Repository.objects.filter(name="limited-2").update(owner=orgs["public"])
    RepositoryFactory(owner=orgs["limited"], name="late", private=True)
    Repository.objects.filter(name="private-2").delete()
    after = check_totals(as_user, callers)
    assert after != before
    orgs["private"].delete()
    check_totals(as_user, callers)


def test_unfiltered_total_reads_no_repository_count(as_user, world, django_assert_max_num_queries):
    bob = world["callers"][3]
    as_user(bob).get("/repos/search?limit=1")
    with django_assert_max_num_queries(8) as queries:
        response = as_user(bob).get("/repos/search?limit=1")
    # public-0/1, limited-0/1, limited-2 (collaborator), private-2 (team link), alice's mine
    assert response["X-Total-Count"] == "7"
    assert not any("SELECT COUNT(*)" in q["sql"] for q in queries.captured_queries)
