"""Repository lists run statements kept per process (config.kept), compiled for the
first caller of a kind and run for every later one with that caller's own values:
callers of every kind taking turns in one process each see exactly what they may see."""

import pytest

from codehost.models import Collaboration, OrgMembership, Repository, TeamMember, TeamRepo
from tests.codehost.factories import (
    OrgFactory,
    RepositoryFactory,
    TeamFactory,
    UserFactory,
    owner_of,
)
from tests.codehost.test_auth import make_token

pytestmark = pytest.mark.django_db


def _names(response) -> list[str]:
    assert response.status_code == 200, response.content
    body = response.json()
    return sorted(repo["full_name"] for repo in (body["data"] if "ok" in body else body))


def test_callers_taking_turns_each_see_their_own_repositories(as_user, admin):
    acme, hidden = OrgFactory(name="acme"), OrgFactory(name="hidden", visibility="private")
    public = RepositoryFactory(owner=acme, name="pub")
    secret = RepositoryFactory(owner=acme, name="sec", private=True)
    shared = RepositoryFactory(owner=acme, name="col", private=True)
    RepositoryFactory(owner=hidden, name="hid")
    users = {name: UserFactory(username=name) for name in ("carol", "dave", "erin", "frank")}
    mallory = UserFactory(username="mallory")
    frank = owner_of(users["frank"])
    for name, private in (("f-open", False), ("f-closed", True)):
        RepositoryFactory(owner=frank, name=name, private=private, parent=public, is_fork=True)
    team = TeamFactory(org=acme, name="readers")
    TeamMember.objects.create(team=team, user=owner_of(users["carol"]))
    TeamRepo.objects.create(team=team, repo=secret)
    Collaboration.objects.create(repo=shared, user=owner_of(users["dave"]))
    OrgMembership.objects.create(org=hidden, user=owner_of(users["erin"]))
    everyone = ["acme/pub", "frank/f-open"]
    seen = {
        "root": (
            as_user(admin),
            [*everyone, "acme/col", "acme/sec", "frank/f-closed", "hidden/hid"],
        ),
        "carol": (as_user(users["carol"]), [*everyone, "acme/sec"]),
        "dave": (as_user(users["dave"]), [*everyone, "acme/col"]),
        "erin": (as_user(users["erin"]), [*everyone, "hidden/hid"]),
        "frank": (as_user(users["frank"]), [*everyone, "frank/f-closed"]),
        "mallory": (as_user(mallory), everyone),
        "anonymous": (as_user(), everyone),
    }
    token = make_token(as_user, users["carol"], ["public-only", "read:repository"])["sha1"]
    scoped = as_user(users["carol"], auth=f"token {token}")
    assert Repository.objects.count() == 6
    for _ in range(2):
        for who, (client, visible) in seen.items():
            expected = sorted(visible)
            assert _names(client.get("/repos/search", {"limit": 50})) == expected, who
            for keyword in ("c", "clo", "f-"):
                wanted = [name for name in expected if keyword in name.partition("/")[2]]
                found = _names(client.get("/repos/search", {"q": keyword, "limit": 50}))
                assert found == wanted, (who, keyword)
            acme_repos = [name for name in expected if name.startswith("acme/")]
            assert _names(client.get("/orgs/acme/repos")) == acme_repos, who
            forks = [name for name in expected if name.startswith("frank/")]
            assert _names(client.get("/repos/acme/pub/forks")) == forks, who
            hidden_repos = client.get("/orgs/hidden/repos")
            if who in ("root", "erin"):
                assert _names(hidden_repos) == ["hidden/hid"], who
            else:
                assert hidden_repos.status_code == 404, who
        # A public-only token searches as an anonymous caller would.
        assert _names(scoped.get("/repos/search", {"limit": 50})) == everyone
    revoked = make_token(as_user, mallory, name="gone")
    assert as_user(mallory).delete(f"/users/mallory/tokens/{revoked['id']}").status_code == 204
    gone = as_user(auth=f"token {revoked['sha1']}")
    assert gone.get("/repos/search").status_code == 401
