"""The environment `manage.py serve` gives the supervisor, and so every process of `make run`."""

from config.management.commands.serve import child_environment


def test_malloc_keeps_two_arenas_unless_the_operator_says_otherwise():
    assert child_environment({"PATH": "/bin"}) == {"PATH": "/bin", "MALLOC_ARENA_MAX": "2"}
    assert child_environment({"MALLOC_ARENA_MAX": "4"})["MALLOC_ARENA_MAX"] == "4"
