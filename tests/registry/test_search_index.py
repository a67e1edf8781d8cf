"""Harbor's search finds repositories by a substring of their name through an index (a
trigram GIN index on PostgreSQL, an FTS5 trigram table kept by triggers on SQLite): the
answer must be exactly the plain substring match's, whatever the term holds, and stay in
step with creations, renames and deletions."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from registry import name_search
from registry.models import Repository
from registry.name_search import CANDIDATES_SQL
from tests.registry.factories import ProjectFactory

pytestmark = pytest.mark.django_db

NAMES = [
    "library/nginx",
    "library/NGINX-alpine",
    "library/redis",
    'library/quote"d',
    "library/per%cent_under",
    "library/star*caret^",
    "library/naïve-ünïcode",
]


@pytest.fixture
def library(alice):
    project = ProjectFactory(name="library", owner=alice, public=True)
    Repository.objects.bulk_create(Repository(project=project, name=n) for n in NAMES)
    return project


def found(client, term: str) -> list[str]:
    response = client.get("/api/v2.0/search", {"q": term})
    assert response.status_code == 200, response.content
    return [row["repository_name"] for row in response.json()["repository"]]


def substring_matches(term: str) -> list[str]:
    """The rule the index must not change: the name holds the term, ASCII case ignored."""
    return sorted(n for n in NAMES if term.lower() in n.lower())


@pytest.mark.parametrize(
    "term",
    [
        "nginx",
        "NgInX",
        "gi",
        "x",
        "redis",
        'e"d',
        "per%cent",
        "%",
        "_under",
        "cent_",
        "star*",
        "*",
        "^",
        "caret^",
        "OR",
        "nginx OR redis",
        '"',
        "ïve",
        "library/",
    ],
)
def test_search_answers_the_plain_substring_match(anon, library, term):
    expected = substring_matches(term)
    if any(ord(c) > 127 for c in term):  # SQLite's LIKE folds ASCII only; PostgreSQL all
        expected = sorted(n for n in NAMES if term in n)
    assert found(anon, term) == expected


def test_index_follows_creations_renames_and_deletions(anon, library):
    assert found(anon, "postgres") == []
    repository = Repository.objects.create(project=library, name="library/postgres")
    assert found(anon, "postgres") == ["library/postgres"]
    Repository.objects.filter(pk=repository.pk).update(name="library/mariadb")
    assert found(anon, "postgres") == [] and found(anon, "mariadb") == ["library/mariadb"]
    repository.delete()
    assert found(anon, "mariadb") == []


def test_search_of_a_term_reads_the_index_not_every_repository(anon, library):
    with CaptureQueriesContext(connection) as queries:
        assert found(anon, "nginx") == ["library/NGINX-alpine", "library/nginx"]
    if connection.vendor == "sqlite":
        assert any("registry_repository_name_fts MATCH" in q["sql"] for q in queries)
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                f"EXPLAIN QUERY PLAN SELECT id FROM registry_repository WHERE id IN "
                f"({CANDIDATES_SQL.replace('%s', '?')})",
                ['"nginx"'],
            )
            plan = " ".join(str(row) for row in cursor.fetchall())
            assert "registry_repository_name_fts VIRTUAL TABLE" in plan
        else:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute(
                "EXPLAIN SELECT id FROM registry_repository WHERE UPPER(name::text) LIKE UPPER(%s)",
                ["%nginx%"],
            )
            plan = " ".join(row[0] for row in cursor.fetchall())
            assert "registry_repository_name_trgm" in plan


@pytest.mark.postgres_only("the trigram GIN index and its pending list are PostgreSQL's")
def test_search_reads_the_index_right_after_a_burst_of_creations(library):
    """A GIN index's default pending list holds new entries unsorted until a vacuum, and the
    planner prices a search at scanning it: after many creations it read every name
    instead. Written through (`fastupdate = off`), the index serves the search at once."""
    Repository.objects.bulk_create(
        (Repository(project=library, name=f"library/repo{n:05d}") for n in range(20_000)),
        batch_size=5_000,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE registry_repository")
        cursor.execute(
            "EXPLAIN SELECT id FROM registry_repository WHERE UPPER(name::text) LIKE UPPER(%s)",
            ["%repo042%"],
        )
        plan = " ".join(row[0] for row in cursor.fetchall())
    assert "registry_repository_name_trgm" in plan, plan


@pytest.fixture
def counted_afresh():
    """No trigram count remembered from another test (they live per process)."""
    name_search._counts.clear()
    yield name_search._counts
    name_search._counts.clear()


@pytest.fixture
def commons(alice):
    project = ProjectFactory(name="p", owner=alice, public=True)
    names = [f"p/common{n:02d}" for n in range(20)] + ["p/commonqz"]
    Repository.objects.bulk_create(Repository(project=project, name=n) for n in names)
    return names


@pytest.mark.sqlite_only("the trigram table's vocabulary is SQLite's (PostgreSQL's GIN weighs)")
def test_a_term_is_looked_up_by_its_two_rarest_trigrams(anon, commons, counted_afresh):
    # "com", "omm", "mmo", "mon" are in all 21 names; "onq" and "nqz" in one.
    assert name_search.candidates_query("CommonQZ") == '"nqz" AND "onq"'
    assert found(anon, "CommonQZ") == ["p/commonqz"]
    # A non-ASCII term keeps its whole phrase (FTS5 folds case as Unicode does).
    assert name_search.candidates_query("commönqz") == '"commönqz"'
    # Two trigrams or fewer: the phrase.
    assert name_search.candidates_query('e"d') == '"e""d"'


@pytest.mark.sqlite_only("the trigram table's vocabulary is SQLite's")
def test_stale_trigram_counts_never_lose_a_match(anon, commons, counted_afresh):
    """Counts are remembered per process: ones from before thousands of creations, or
    simply wrong, choose other trigrams, whose names the LIKE then decides among."""
    forever = float("inf")
    stale = {"com": 0, "omm": 0, "onq": 10**6, "nqz": 10**6, "mmo": 5, "mon": 5}
    counted_afresh.update({trigram: (n, forever) for trigram, n in stale.items()})
    assert name_search.candidates_query("commonqz") == '"com" AND "omm"'
    assert found(anon, "commonqz") == ["p/commonqz"]
    assert found(anon, "common") == sorted(commons)
    assert found(anon, "monq") == ["p/commonqz"]


@pytest.mark.sqlite_only("the trigram table's vocabulary is SQLite's")
def test_a_long_term_weighs_a_few_trigrams_in_one_query(anon, commons, counted_afresh):
    term = "common" * 40
    with CaptureQueriesContext(connection) as queries:
        assert found(anon, term) == []
    lookups = [q["sql"] for q in queries if "registry_repository_name_vocab" in q["sql"]]
    assert len(lookups) == 1
    assert lookups[0].count("term =") <= name_search.TRIGRAMS_WEIGHED
    # Remembered: the next search of it counts nothing again.
    with CaptureQueriesContext(connection) as queries:
        assert found(anon, term) == []
    assert not [q for q in queries if "registry_repository_name_vocab" in q["sql"]]
