"""A request's own filter values never act as a kept statement's markers
(config.kept): an id or a text equal to what was once a fixed marker
is matched as typed (nothing holds it), never replaced by the caller's user, groups,
project or page bounds, and never a 500. A NUL character (no name holds one; SQLite's
LIKE and FTS5 would read it as the pattern's end) matches nothing on both databases."""

import pytest

from tests.registry.factories import ProjectFactory, push

pytestmark = pytest.mark.django_db

PUBLISHED_INT = -(2**62)
# Each list with an id key and a text key of its q.
PATHS = {
    "/api/v2.0/repositories": ("id", "name"),
    "/api/v2.0/projects/open/repositories": ("project_id", "name"),
    "/api/v2.0/projects/open/repositories/app/artifacts": ("id", "digest"),
    "/api/v2.0/projects": ("project_id", "name"),
}


@pytest.mark.parametrize("slot", [0, 1, 2, 4, 5, 14, 15])
def test_an_id_equal_to_a_marker_matches_nothing(alice, alice_client, anon, admin_client, slot):
    open_project = ProjectFactory(name="open", owner=alice, public=True)
    push(open_project, "app")
    marker = PUBLISHED_INT - slot
    for client in (alice_client, anon, admin_client):
        for path, (key, _) in PATHS.items():
            for q in (f"{key}={marker}", f"{key}=[~{marker}]"):
                response = client.get(path, {"q": q})
                assert response.status_code == 200, (path, q, response.content)
                assert response.json() == [], (path, q)
            response = client.get(path, {"q": f"{key}={{{marker} {open_project.pk}}}"})
            assert response.status_code == 200, (path, response.content)
            # A range bound in the markers' span keeps its meaning.
            response = client.get(path, {"q": f"pull_count=[{marker}~]"})
            assert response.status_code == 200, (path, response.content)


@pytest.mark.parametrize("text", ["\x00mark0\x00", "\x00mark2\x00", "pp\x00zz", "p\x00"])
def test_a_text_holding_nul_matches_nothing(alice, alice_client, anon, text):
    open_project = ProjectFactory(name="open", owner=alice, public=True)
    push(open_project, "app")
    for client in (alice_client, anon):
        for path, (_, key) in PATHS.items():
            for q in (f"{key}=~{text}", f"{key}={text}"):
                response = client.get(path, {"q": q})
                assert response.status_code == 200, (path, q, response.content)
                assert response.json() == [], (path, q)


@pytest.mark.parametrize("term", ["ope\x00n", "\x00", "a\x00", "open\x00app", "x" * 3 + "\x00"])
def test_a_search_term_holding_nul_finds_nothing(alice, alice_client, anon, term):
    open_project = ProjectFactory(name="open", owner=alice, public=True)
    push(open_project, "app")
    for client in (alice_client, anon):
        response = client.get("/api/v2.0/search", {"q": term})
        assert response.status_code == 200, response.content
        assert response.json() == {"project": [], "repository": []}


@pytest.mark.parametrize("q", ["{id}=abc", "{id}=99999999999999999999", "{text}={{}}"])
def test_a_filter_matching_nothing_is_an_empty_page(alice, alice_client, anon, q):
    """Django compiles no query for it (EmptyResultSet); a kept statement must not 500."""
    push(ProjectFactory(name="open", owner=alice, public=True), "app")
    for client in (alice_client, anon):
        for path, (key, text) in PATHS.items():
            response = client.get(path, {"q": q.format(id=key, text=text)})
            assert response.status_code == 200, (path, response.content)
            assert response.json() == [], path
            assert response["X-Total-Count"] == "0"


@pytest.mark.parametrize("name", ["o\x00", "\x00"])
def test_a_project_name_filter_holding_nul_is_bad_input_on_both_databases(
    alice, alice_client, name
):
    """PostgreSQL cannot compare text holding NUL; SQLite refuses it alike
    (config.sqlite_text) instead of reading the NUL as the pattern's end."""
    ProjectFactory(name="open", owner=alice, public=True)
    response = alice_client.get("/api/v2.0/projects", {"name": name})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["code"] == "BAD_REQUEST"
