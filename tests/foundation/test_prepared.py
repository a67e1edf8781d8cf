"""Statements run prepared on PostgreSQL (`config.prepared`) keep answering after
the transaction or savepoint they were prepared in is rolled back."""

import pytest
from django.db import connection, transaction

from config import prepared

pytestmark = pytest.mark.django_db

SQL = "SELECT CAST(%s AS integer) + 1"


def run(value: int):
    with prepared.cursor() as cursor:
        cursor.execute(SQL, [value])
        return cursor.fetchone()[0]


def prepared_count() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["SELECT CAST($1 AS integer) + 1"],
        )
        return cursor.fetchone()[0]


def test_a_statement_is_prepared_again_after_a_rollback():
    assert run(1) == 2
    if connection.vendor == "postgresql":
        assert prepared_count() == 1
    with pytest.raises(ValueError), transaction.atomic():
        assert run(2) == 3
        raise ValueError("rolled back to the savepoint")
    assert run(3) == 4
    if connection.vendor == "postgresql":
        assert prepared_count() == 1


def test_statements_are_counted_as_any_other(django_assert_num_queries):
    with django_assert_num_queries(2):
        run(1)
        run(2)
