"""Querysets kept per process (config.kept): compiled once, then run with each call's values
where the queryset held markers; what each run answers is what the ORM would answer."""

import copy

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models.expressions import RawSQL

from config import kept as kept_module
from config.kept import Kept, KeptList, any_id, arg, value

pytestmark = pytest.mark.django_db
User = get_user_model()
# What registry.statements reserved as its first marker: any int from -(2**62) down.
OLD_MARKER = -(2**62)


@pytest.fixture
def users():
    return {name: User.objects.create(username=name) for name in ("alice", "a_b", "axb", "bob")}


def test_a_constant_equal_to_a_former_reserved_marker_is_no_marker(users):
    """A query holding the value the registry once reserved for its markers keeps it: the
    markers are known by their type, not by their value."""
    kept = Kept(
        lambda: (
            User.objects.filter(pk=value("user"), username=arg("name"))
            .annotate(constant=RawSQL("%s", (OLD_MARKER,)))
            .values_list("username", "constant")
        )
    )
    alice = users["alice"]
    for _ in range(2):
        assert kept.rows(user=alice.pk, name="alice") == [("alice", OLD_MARKER)]
        assert kept.rows(user=alice.pk, name="bob") == []


def test_each_run_binds_its_own_values_into_one_compiled_statement(users):
    built = []

    def build():
        built.append(1)
        return User.objects.filter(username=arg("name")).values("pk", "is_staff")

    kept = Kept(build)
    for name in ("alice", "bob", "nobody", "alice"):
        expected = list(User.objects.filter(username=name).values("pk", "is_staff"))
        assert kept.rows(name=name) == expected
    assert len(built) == 1
    # Booleans come back as bool on SQLite too, as Django converts them.
    assert kept.rows(name="alice") == [{"pk": users["alice"].pk, "is_staff": False}]


def test_id_lists_are_one_parameter_whatever_their_length(users):
    kept = Kept(
        lambda: (
            User.objects.filter(pk__in=any_id("ids"))
            .order_by("pk")
            .values_list("username", flat=True)
        )
    )
    ids = [user.pk for user in users.values()]
    assert kept.rows(ids=ids[:1]) == ["alice"]
    assert kept.rows(ids=ids) == sorted(users, key=lambda name: users[name].pk)
    assert kept.rows(ids=[]) == []
    sql = kept._statement("default", "rows").sql
    expected = "unnest(%s::bigint[])" if connection.vendor == "postgresql" else "json_each(%s)"
    assert expected in sql and sql.count("%s") == 1


def test_a_like_pattern_marker_is_filled_escaped_as_django_escapes_it(users):
    kept = Kept(
        lambda: (
            User.objects.filter(username__contains=arg("part_of"))
            .order_by("username")
            .values_list("username", flat=True)
        )
    )
    for part, expected in (("_", ["a_b"]), ("%", []), ("b", ["a_b", "axb", "bob"])):
        assert kept.rows(part_of=part) == expected
        assert (
            list(
                User.objects.filter(username__contains=part)
                .order_by("username")
                .values_list("username", flat=True)
            )
            == expected
        )


def test_counts_and_pages_agree_with_the_orm_in_every_form(users):
    def build():
        return User.objects.filter(pk__in=any_id("ids")).order_by("username").values("username")

    ids = [user.pk for user in users.values()]
    whole = [{"username": name} for name in sorted(users)]
    for options in ({}, {"ids_first": True}, {"plain_count": False}):
        window = Kept(build, **options).bind(ids=ids)
        assert window.count() == 4
        assert window[1:3] == whole[1:3]
        assert window[0:10] == whole
        assert list(window) == whole


def test_shapes_kept_are_bounded(users, monkeypatch):
    monkeypatch.setattr(kept_module, "MAX_SHAPES", 2)
    built = []

    def build(shape):
        built.append(shape)
        return User.objects.filter(username=arg("name")).values_list("username", flat=True)

    shapes = KeptList(build)
    for _ in range(2):
        for shape in ("a", "b", "c"):
            assert list(shapes.rows(shape, name="bob")) == ["bob"]
    # "c" came past the bound: compiled again for each of its runs.
    assert built == ["a", "b", "c", "c"]


def test_a_copied_marker_is_the_same_marker():
    marker = arg("name")
    assert copy.deepcopy(marker) == marker and copy.deepcopy(marker).name == "name"


def test_a_filter_matching_nothing_gives_no_rows_without_a_query(users):
    """Django compiles no SQL for it (EmptyResultSet): no rows, a count of 0."""
    kept = Kept(lambda: User.objects.filter(pk__in=[], username=arg("name")).values("pk"))
    window = kept.bind(name="alice")
    assert (window.count(), window[0:10], list(window)) == (0, [], [])
    assert kept.rows(name="alice") == []
