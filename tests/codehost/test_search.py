"""GET /repos/search: every parameter, its rules and its 422 messages; constant queries."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from codehost.models import Collaboration, Repository, Star
from tests.codehost.factories import OrgFactory, RepositoryFactory, UserFactory, owner_of

pytestmark = pytest.mark.django_db


def names(response):
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True
    return [repo["full_name"] for repo in body["data"]]


@pytest.fixture
def world(alice, bob):
    """alice owns public/private repos, a fork, a mirror; bob collaborates on one."""
    me = owner_of(alice)
    now = timezone.now()
    repos = {
        "alpha": RepositoryFactory(owner=me, name="alpha", description="first thing", size=300),
        "beta": RepositoryFactory(owner=me, name="Beta", topics=["web", "golang"], size=100),
        "secret": RepositoryFactory(owner=me, name="secret-tool", private=True, size=200),
        "fork": RepositoryFactory(owner=owner_of(bob), name="alpha-fork", is_fork=True),
        "mirror": RepositoryFactory(owner=owner_of(bob), name="mirror-of-x", is_mirror=True),
    }
    repos["fork"].parent = repos["alpha"]
    repos["fork"].save()
    for offset, repo in enumerate(repos.values()):
        Repository.objects.filter(pk=repo.pk).update(
            created_at=now - timedelta(days=10 - offset), updated_at=now - timedelta(days=offset)
        )
    Collaboration.objects.create(repo=repos["secret"], user=owner_of(bob))
    Star.objects.create(user=owner_of(bob), repo=repos["beta"])
    return repos


def test_anonymous_sees_public_repos_of_public_owners_by_name(as_user, world):
    hidden_org = OrgFactory(name="hidden", visibility="private")
    RepositoryFactory(owner=hidden_org, name="aaa-public-but-hidden")
    response = as_user().get("/repos/search")
    assert names(response) == ["alice/alpha", "bob/alpha-fork", "alice/Beta", "bob/mirror-of-x"]
    assert response["X-Total-Count"] == "4"
    assert response["Content-Type"] == "application/json;charset=utf-8"


def test_signed_in_sees_private_repos_they_can_access_unless_private_false(as_user, bob, world):
    assert "alice/secret-tool" in names(as_user(bob).get("/repos/search"))
    assert "alice/secret-tool" not in names(as_user(bob).get("/repos/search?private=False"))
    assert "alice/secret-tool" not in names(as_user(UserFactory()).get("/repos/search"))


def test_keyword_matches_name_topics_owner_slash_name_and_optionally_description(as_user, world):
    assert names(as_user().get("/repos/search?q=%20ALPHA%20")) == ["alice/alpha", "bob/alpha-fork"]
    assert names(as_user().get("/repos/search?q=golang")) == ["alice/Beta"]
    assert names(as_user().get("/repos/search?q=bob/alpha")) == ["bob/alpha-fork"]
    assert names(as_user().get("/repos/search?q=first")) == []
    assert names(as_user().get("/repos/search?q=FIRST&includeDesc=TRUE")) == ["alice/alpha"]
    assert names(as_user().get("/repos/search?q=beta,mirror")) == ["alice/Beta", "bob/mirror-of-x"]


def test_keyword_wildcards_match_literally(as_user, alice, world):
    """A search's statement is compiled once per shape and its words bound per request:
    LIKE's `_` and `%` in a word still match only themselves."""
    me = owner_of(alice)
    RepositoryFactory(owner=me, name="a_b", description="50% off")
    RepositoryFactory(owner=me, name="axb", description="500 off")
    assert names(as_user().get("/repos/search?q=a_b")) == ["alice/a_b"]
    assert names(as_user().get("/repos/search?q=50%25&includeDesc=true")) == ["alice/a_b"]
    assert names(as_user().get("/repos/search?q=alice/a_b")) == ["alice/a_b"]
    assert names(as_user().get("/repos/search?q=axb")) == ["alice/axb"]


def test_topic_only_is_an_exact_topic_match(as_user, world):
    assert names(as_user().get("/repos/search?q=web&topic=true")) == ["alice/Beta"]
    assert names(as_user().get("/repos/search?q=we&topic=true")) == []
    assert names(as_user().get("/repos/search?q=beta&topic=true")) == []


def test_uid_exclusive_starred_by(as_user, alice, bob, world):
    me, other = owner_of(alice).pk, owner_of(bob).pk
    assert names(as_user(bob).get(f"/repos/search?uid={other}")) == [
        "bob/alpha-fork", "bob/mirror-of-x", "alice/secret-tool",
    ]  # fmt: skip
    assert names(as_user(bob).get(f"/repos/search?uid={other}&exclusive=1")) == [
        "bob/alpha-fork", "bob/mirror-of-x",
    ]  # fmt: skip
    assert names(as_user().get(f"/repos/search?uid={me}")) == ["alice/alpha", "alice/Beta"]
    assert names(as_user().get(f"/repos/search?starredBy={other}")) == ["alice/Beta"]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("source", ["alice/alpha", "alice/Beta", "alice/secret-tool"]),
        ("fork", ["bob/alpha-fork"]),
        ("mirror", ["bob/mirror-of-x"]),
        (
            "",
            ["alice/alpha", "bob/alpha-fork", "alice/Beta", "bob/mirror-of-x", "alice/secret-tool"],
        ),
    ],
)
def test_modes(as_user, alice, world, mode, expected):
    assert names(as_user(alice).get(f"/repos/search?mode={mode}")) == expected


def test_collaborative_mode_is_repos_the_user_collaborates_on(as_user, bob, world):
    uid = owner_of(bob).pk
    assert names(as_user(bob).get(f"/repos/search?mode=collaborative&uid={uid}")) == [
        "alice/secret-tool"
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("sort=alpha", ["alice/alpha", "alice/Beta", "bob/alpha-fork", "bob/mirror-of-x"]),
        (
            "sort=alpha&order=desc",
            ["bob/mirror-of-x", "bob/alpha-fork", "alice/Beta", "alice/alpha"],
        ),
        ("sort=created", ["alice/alpha", "alice/Beta", "bob/alpha-fork", "bob/mirror-of-x"]),
        (
            "sort=created&order=desc",
            ["bob/mirror-of-x", "bob/alpha-fork", "alice/Beta", "alice/alpha"],
        ),
        ("sort=updated", ["bob/mirror-of-x", "bob/alpha-fork", "alice/Beta", "alice/alpha"]),
        (
            "sort=updated&order=desc",
            ["alice/alpha", "alice/Beta", "bob/alpha-fork", "bob/mirror-of-x"],
        ),
        (
            "sort=size&order=desc",
            ["alice/alpha", "alice/Beta", "bob/mirror-of-x", "bob/alpha-fork"],
        ),
        ("sort=id", ["alice/alpha", "alice/Beta", "bob/alpha-fork", "bob/mirror-of-x"]),
        ("sort=id&order=desc", ["bob/mirror-of-x", "bob/alpha-fork", "alice/Beta", "alice/alpha"]),
        ("order=desc", ["alice/alpha", "bob/alpha-fork", "alice/Beta", "bob/mirror-of-x"]),
    ],
)
def test_sort_and_order(as_user, world, query, expected):
    assert names(as_user().get(f"/repos/search?{query}")) == expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("mode=weird", 'Invalid search mode: "weird"'),
        ("sort=weird", 'Invalid sort mode: "weird"'),
        ("sort=id&order=up", 'Invalid sort order: "up"'),
        ("sort=weird&order=up", 'Invalid sort order: "up"'),
    ],
)
def test_invalid_parameters_are_422(as_user, world, query, message):
    response = as_user().get(f"/repos/search?{query}")
    assert response.status_code == 422
    assert response.json()["message"] == message


def test_limit_is_capped_at_50_and_pages_are_linked(as_user, alice):
    me = owner_of(alice)
    Repository.objects.bulk_create(
        [Repository(owner=me, name=f"r{i:03}", lower_name=f"r{i:03}") for i in range(60)]
    )
    first = as_user().get("/repos/search?limit=100")
    assert len(first.json()["data"]) == 50
    assert first["X-Total-Count"] == "60"
    assert first["Link"] == (
        '<http://127.0.0.1:8000/api/v1/repos/search?limit=100&page=2>; rel="next",'
        '<http://127.0.0.1:8000/api/v1/repos/search?limit=100&page=2>; rel="last"'
    )
    second = as_user().get("/repos/search?limit=50&page=2")
    assert [r["name"] for r in second.json()["data"]] == [f"r{i:03}" for i in range(50, 60)]
    assert len(as_user().get("/repos/search").json()["data"]) == 30


@pytest.mark.parametrize("limit", [5, 50])
def test_search_query_count_is_constant(as_user, bob, world, django_assert_max_num_queries, limit):
    org = OrgFactory()
    for i in range(60):
        RepositoryFactory(owner=org, name=f"repo{i}")
    api = as_user(bob)
    api.get("/repos/search?limit=1")  # warm the Basic-auth cache
    # user, namespace, count, page, forks' parents, owners, mirror rows, team links,
    # collaborations: one each, whatever the page size.
    with django_assert_max_num_queries(9):
        response = api.get(f"/repos/search?limit={limit}")
    assert len(response.json()["data"]) == limit


def test_priority_owner_comes_first(as_user, bob, world):
    uid = owner_of(bob).pk
    assert names(as_user().get(f"/repos/search?priority_owner_id={uid}")) == [
        "bob/alpha-fork", "bob/mirror-of-x", "alice/alpha", "alice/Beta",
    ]  # fmt: skip


@pytest.mark.parametrize("query", ["limit=abc", "page=", "uid=x", "topic=maybe"])
def test_malformed_query_values_are_422(as_user, world, query):
    assert as_user().get(f"/repos/search?{query}").status_code == 422


# Gitea reads numbers with Go's strconv: Python's int() would also take these.
@pytest.mark.parametrize("limit", ["1_0", "%205", "5%20", "%0A5", "\u0665", "\uff15"])
def test_only_go_syntax_numbers_are_numbers(as_user, world, limit):
    response = as_user().get(f"/repos/search?limit={limit}")
    assert response.status_code == 422
    assert response.json()["message"] == "[limit]: must be an integer"


def test_a_signed_number_is_a_number(as_user, world):
    assert len(names(as_user().get("/repos/search?limit=%2B2"))) == 2
    assert len(names(as_user().get("/repos/search?limit=-0"))) == 4  # 0 and below: default


def test_absurd_page_number_is_an_empty_page(as_user, world):
    response = as_user().get("/repos/search?page=2054006639512979712")
    assert response.status_code == 200
    assert response.json()["data"] == []


def test_private_org_repos_are_seen_through_teams(as_user, alice, bob, acme, git_root):
    """A team that includes all repositories sees every private repository of the org,
    including ones created after it; another team only the repositories linked to it."""
    api = as_user(alice)
    everything = {"units_map": {"repo.code": "read"}, "includes_all_repositories": True}
    some = {"units_map": {"repo.code": "read"}}
    for name, body in (("all-readers", everything), ("some-readers", some)):
        assert api.post("/orgs/acme/teams", {"name": name, **body}).status_code == 201
    for name in ("hidden-a", "hidden-b"):
        assert api.post("/org/acme/repos", {"name": name, "private": True}).status_code == 201
    all_readers, some_readers = (acme.teams.get(name=n).pk for n in ("all-readers", "some-readers"))
    carol, dave = UserFactory(username="carol"), UserFactory(username="dave")
    assert api.put(f"/teams/{all_readers}/members/carol").status_code == 204
    assert api.put(f"/teams/{some_readers}/members/dave").status_code == 204
    assert api.put(f"/teams/{some_readers}/repos/acme/hidden-b").status_code == 204
    assert names(as_user(carol).get("/repos/search")) == ["acme/hidden-a", "acme/hidden-b"]
    assert names(as_user(dave).get("/repos/search")) == ["acme/hidden-b"]
    assert names(as_user(bob).get("/repos/search")) == []
    assert names(as_user(dave).get("/repos/search?private=false")) == []


def test_database_failure_is_500_ok_false_without_sql(as_user, world):
    """A real failure: the repository table is gone for this (rolled back) transaction."""
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE codehost_repository RENAME TO codehost_repository_gone")
    response = as_user().get("/repos/search?q=alpha")
    assert response.status_code == 500
    # The driver's error class (a missing table: PostgreSQL's ProgrammingError, SQLite's
    # OperationalError), never the SQL.
    error = "ProgrammingError" if connection.vendor == "postgresql" else "OperationalError"
    assert response.json() == {"ok": False, "error": f"SearchRepository: {error}"}
