"""Data model rules that the API relies on."""

import re

import pytest
from django.db import IntegrityError, connection

from codehost.models import Owner, Repository
from tests.codehost.factories import OrgFactory, RepositoryFactory, UserFactory, owner_of

pytestmark = pytest.mark.django_db


def test_every_account_gets_a_user_namespace():
    user = UserFactory(username="Alice")
    owner = owner_of(user)
    assert owner.kind == Owner.Kind.USER
    assert (owner.name, owner.lower_name) == ("Alice", "alice")


def test_repository_names_are_unique_per_owner_case_insensitively():
    org = OrgFactory()
    RepositoryFactory(owner=org, name="Demo")
    RepositoryFactory(owner=OrgFactory(), name="demo")
    with pytest.raises(IntegrityError):
        RepositoryFactory(owner=org, name="DEMO")


@pytest.mark.postgres_only(reason="trigram indexes are PostgreSQL's (SQLite scans a narrow index)")
def test_keyword_search_has_trigram_indexes_on_postgresql():
    """Keyword search's trigram indexes, written through on insert: no pending list for
    the planner to price at a sequential scan's cost after a burst of creations (the
    registry's search tests that burst)."""
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indexname, c.reloptions FROM pg_indexes i "
            "JOIN pg_class c ON c.relname = i.indexname "
            "WHERE i.tablename = %s AND i.indexdef LIKE %s",
            [Repository._meta.db_table, "%gin_trgm_ops%"],
        )
        options = dict(cursor.fetchall())
    assert options == {
        "codehost_repo_name_trgm": ["fastupdate=off"],
        "codehost_repo_desc_trgm": ["fastupdate=off"],
        "codehost_repo_topics_trgm": ["fastupdate=off"],
    }


@pytest.mark.sqlite_only(reason="PostgreSQL answers keywords through its trigram indexes")
def test_a_keyword_count_reads_the_narrow_index_on_sqlite(alice):
    from codehost.access import Actor
    from codehost.search import SearchOptions, search_repos

    RepositoryFactory(owner=owner_of(alice), name="falcon", description="x" * 2000)
    # Signed in, and anonymous (whose owner condition must not steer SQLite to the owner
    # index, which reads every public row's wide record for its LIKE). A word of 3
    # characters or more takes its candidates from the trigram table; a shorter one scans
    # a narrow index (0007's by name or 0010's by id: the same columns).
    narrow = r"COVERING INDEX codehost_repo_(keyword|by_id)_sqlite"
    for actor in (Actor(owner=owner_of(alice)), Actor()):
        for keyword, reads in (
            ("falcon", "codehost_repository_keyword_fts VIRTUAL TABLE"),
            ("fa", narrow),
        ):
            query = search_repos(actor, SearchOptions(keyword=keyword)).order_by().values("pk")
            sql, params = query.query.sql_with_params()
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN QUERY PLAN SELECT count(*) FROM ({sql})", params)
                plan = " ".join(str(row[-1]) for row in cursor.fetchall())
            assert re.search(reads, plan), plan
            assert "codehost_repo_visible_idx" not in plan, plan
            assert query.count() == 1
