"""GET /repos/search?q=..: who sees which matches (anonymous callers see public repositories
of public owners only), exact totals on every page, constant queries. The page's ids and
its total come from one statement (`COUNT(*) OVER ()`): these pin that it keeps the rules."""

import pytest

from codehost.models import OrgMembership, Owner, Repository
from tests.codehost.factories import OrgFactory, RepositoryFactory, UserFactory, owner_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def owners(alice, bob):
    """Matching repositories, public and private, under owners of every visibility; and
    repositories sorting before them that do not match."""
    quiet = owner_of(UserFactory(username="quiet"))
    Owner.objects.filter(pk=quiet.pk).update(visibility="limited")
    every = {
        "alice": owner_of(alice),
        "open": OrgFactory(name="open"),
        "closed": OrgFactory(name="closed", visibility="private"),
        "members": OrgFactory(name="members", visibility="limited"),
        "quiet": quiet,
    }
    for name, owner in every.items():
        for n in range(3):
            RepositoryFactory(owner=owner, name=f"falcon-{name}-{n}", private=n == 2)
        RepositoryFactory(owner=owner, name=f"aaa-{name}")  # sorts first, does not match
    OrgMembership.objects.create(org=every["closed"], user=owner_of(bob))
    return every


def listed(response) -> tuple[list[str], int]:
    assert response.status_code == 200, response.content
    return [r["full_name"] for r in response.json()["data"]], int(response["X-Total-Count"])


PUBLIC = [
    "alice/falcon-alice-0",
    "alice/falcon-alice-1",
    "open/falcon-open-0",
    "open/falcon-open-1",
]


def test_anonymous_keyword_search_lists_public_repos_of_public_owners_only(as_user, owners):
    assert listed(as_user().get("/repos/search?q=falcon")) == (PUBLIC, 4)
    # A private repository, or any of a private or limited owner, is never found by name.
    for hidden in ["falcon-alice-2", "falcon-closed-0", "falcon-members-0", "falcon-quiet-0"]:
        assert listed(as_user().get(f"/repos/search?q={hidden}")) == ([], 0)
    assert listed(as_user().get("/repos/search?q=closed/falcon")) == ([], 0)


@pytest.mark.parametrize("limit", [1, 3, 4])
def test_anonymous_totals_are_exact_on_every_page_and_past_the_end(as_user, owners, limit):
    seen = []
    for page in range(1, 6):
        names, total = listed(as_user().get(f"/repos/search?q=falcon&limit={limit}&page={page}"))
        assert total == 4
        seen += names
    assert seen == PUBLIC


def test_signed_in_keyword_search_adds_what_the_caller_may_see(as_user, alice, bob, owners):
    # bob: a member of the private org, signed in (limited owners' public repositories).
    names, total = listed(as_user(bob).get("/repos/search?q=falcon&limit=50"))
    assert names == [
        "alice/falcon-alice-0", "alice/falcon-alice-1", "closed/falcon-closed-0",
        "closed/falcon-closed-1", "members/falcon-members-0", "members/falcon-members-1",
        "open/falcon-open-0", "open/falcon-open-1", "quiet/falcon-quiet-0", "quiet/falcon-quiet-1",
    ]  # fmt: skip
    assert total == 10
    # alice also sees her own private repository, not the private org's.
    names, total = listed(as_user(alice).get("/repos/search?q=falcon&limit=50"))
    assert "alice/falcon-alice-2" in names and not any("closed" in name for name in names)
    assert total == len(names) == 9


@pytest.mark.parametrize("query", ["q=falcon&limit=1", "q=falcon&limit=50", "q=falcon&page=9"])
def test_anonymous_keyword_search_query_count_is_constant(
    as_user, owners, django_assert_max_num_queries, query
):
    # The page's ids with the total (or, past the end, the count), its rows, its owners.
    with django_assert_max_num_queries(3):
        listed(as_user().get(f"/repos/search?{query}"))


@pytest.mark.parametrize("visibility", ["anonymous", "public-or-member", "visible"])
def test_a_page_rows_are_read_again_under_the_callers_visibility(owners, visibility):
    """The page's rows are read by id after its ids: a repository made private (or its
    owner hidden) in between is left out, not listed."""
    from codehost.api.views.search_rows import PAGE_ROWS

    public = Repository.objects.get(name="falcon-open-0")
    hidden = Repository.objects.get(name="falcon-closed-0")  # a private org's
    stranger = owner_of(UserFactory(username="stranger")).pk
    me = None if visibility == "anonymous" else stranger
    rows = PAGE_ROWS[visibility].rows(ids=[public.pk, hidden.pk], me=me)
    assert [row["id"] for row in rows] == [public.pk]
    Repository.objects.filter(pk=public.pk).update(private=True)
    assert PAGE_ROWS[visibility].rows(ids=[public.pk, hidden.pk], me=me) == []
