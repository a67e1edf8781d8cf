"""A repository search's statement is kept per shape (the number of keyword words among
it): a search of many words compiles its own instead. Kept, an anonymous caller's few
hundred searches of a few hundred words each held hundreds of MiB in every web process
for good (40 of ~270 words: 27 MiB on SQLite)."""

import pytest

from codehost.api.views.search_rows import SEARCH
from tests.codehost.factories import OrgFactory, RepositoryFactory

pytestmark = pytest.mark.django_db


def test_a_search_of_many_words_is_not_kept(as_user):
    org = OrgFactory(name="acme")
    for name in ("alpha", "beta", "gamma"):
        RepositoryFactory(owner=org, name=name)
    kept = len(SEARCH._shapes)
    for words in (30, 31, 32):
        keyword = ",".join(["beta", *(f"zz{n}" for n in range(words - 1))])
        response = as_user().get("/repos/search", {"q": keyword})
        assert response.status_code == 200, response.content
        assert [repo["name"] for repo in response.json()["data"]] == ["beta"]
        assert response["X-Total-Count"] == "1"
    assert len(SEARCH._shapes) == kept
    found = as_user().get("/repos/search", {"q": "alpha,gamma"}).json()["data"]
    assert sorted(repo["name"] for repo in found) == ["alpha", "gamma"]
    assert len(SEARCH._shapes) <= kept + 1
