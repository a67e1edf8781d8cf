"""A repository search keyword holding a NUL is refused alike on both databases: it
cannot be stored or compared on PostgreSQL, and SQLite's LIKE reads it as the pattern's
end (a keyword of "\\0" matched every repository) while its FTS5 query fails (500)."""

import pytest

from tests.codehost.factories import OrgFactory, RepositoryFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("keyword", ["\x00", "abc\x00", "a\x00bc", "acme/ab\x00c", "ok,\x00"])
@pytest.mark.parametrize("options", [{}, {"includeDesc": "true"}, {"topic": "true"}])
def test_a_keyword_holding_nul_is_refused(as_user, alice, keyword, options):
    RepositoryFactory(owner=OrgFactory(name="acme"), name="abcdef", topics=["go"])
    for caller in (as_user(), as_user(alice)):
        response = caller.get("/repos/search", {"q": keyword, **options})
        assert response.status_code == 422, response.content
        assert "NUL" in response.json()["message"]


@pytest.mark.parametrize("include_desc", ["true", "false"])
def test_a_team_keyword_holding_nul_is_bad_input_on_both_databases(as_user, alice, include_desc):
    """PostgreSQL cannot compare text holding NUL; SQLite refuses it alike
    (config.sqlite_text) instead of reading the NUL as the pattern's end."""
    response = as_user(alice).post("/orgs", {"username": "acme"})
    assert response.status_code == 201
    for keyword in ("a\x00", "\x00"):
        response = as_user(alice).get(
            "/orgs/acme/teams/search", {"q": keyword, "include_desc": include_desc}
        )
        assert response.status_code == 400, response.content
        assert "message" in response.json()
