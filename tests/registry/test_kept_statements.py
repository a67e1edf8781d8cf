"""Project and repository lists run statements kept per process (config.kept):
compiled for the first caller, then run for every other one with that caller's own
values (user, groups, project). Callers taking turns each see what they may see."""

from registry.models import Role
from tests.registry.conftest import client_for
from tests.registry.factories import (
    MemberFactory,
    ProjectFactory,
    UserFactory,
    UserGroupFactory,
    push,
)


def _names(client, path: str, **params) -> list[str]:
    response = client.get(path, params)
    assert response.status_code == 200, response.content
    return sorted(item["name"] for item in response.json())


def test_callers_taking_turns_each_see_their_own_projects_and_repositories(
    admin, admin_client, alice, alice_client, bob, bob_client, anon
):
    carol = UserFactory(username="carol")
    group = UserGroupFactory(group_name="carols")
    group.users.add(carol)
    shown = {}
    for name, owner in (("open", admin), ("mine", alice), ("his", bob), ("theirs", admin)):
        project = ProjectFactory(name=name, owner=owner, public=name == "open")
        push(project, "app")
        shown[name] = project
    MemberFactory(project=shown["theirs"], user=None, group=group, role=Role.GUEST)
    carol_client = client_for(carol)
    expected = {
        "alice": (alice_client, ["mine", "open"]),
        "bob": (bob_client, ["his", "open"]),
        "carol": (carol_client, ["open", "theirs"]),
        "anonymous": (anon, ["open"]),
        "admin": (admin_client, ["his", "mine", "open", "theirs"]),
    }
    for _ in range(2):
        for who, (client, projects) in expected.items():
            assert _names(client, "/api/v2.0/projects") == projects, who
            repositories = _names(client, "/api/v2.0/repositories")
            assert repositories == [f"{name}/app" for name in projects], who
            # A filter written into the SQL (not kept) agrees.
            assert _names(client, "/api/v2.0/projects", q="name=~o") == [
                name for name in projects if "o" in name
            ], who

    roles = {
        p["name"]: p.get("current_user_role_id", 0)
        for p in carol_client.get("/api/v2.0/projects").json()
    }
    assert roles == {"open": 0, "theirs": Role.GUEST}
    # A page's rows are picked by id first: pages in turn give the whole list, in order.
    whole = [r["name"] for r in admin_client.get("/api/v2.0/repositories").json()]
    paged = [
        r["name"]
        for page in (1, 2, 3, 4)
        for r in admin_client.get("/api/v2.0/repositories", {"page": page, "page_size": 1}).json()
    ]
    assert paged == whole and len(whole) == 4
    for name in ("mine", "open"):
        assert _names(alice_client, f"/api/v2.0/projects/{name}/repositories") == [f"{name}/app"]


def test_search_terms_taking_turns_are_each_matched_as_typed(alice, alice_client, anon):
    public = ProjectFactory(name="open", owner=alice, public=True)
    ProjectFactory(name="mine", owner=alice)
    for repository in ("app_1", "appx1", "other"):
        push(public, repository)
    push(ProjectFactory(name="hidden", owner=UserFactory(username="dave")), "app_1")

    def search(client, term: str) -> tuple[list[str], list[str]]:
        found = client.get("/api/v2.0/search", {"q": term}).json()
        projects = [p["name"] for p in found["project"]]
        return projects, [r["repository_name"] for r in found["repository"]]

    for _ in range(2):
        # LIKE's wildcards in a term are plain characters, as in Harbor.
        assert search(anon, "p_1") == ([], ["open/app_1"])
        assert search(alice_client, "P_1") == ([], ["open/app_1"])
        assert search(anon, "%") == ([], [])
        assert search(alice_client, "app") == ([], ["open/app_1", "open/appx1"])
        everything = ["open/app_1", "open/appx1", "open/other"]
        assert search(alice_client, "n") == (["mine", "open"], everything)
        assert search(anon, "n") == (["open"], everything)
