"""Kept statements (config.kept) with robots among the callers: a robot's
statements are compiled for it alone (its projects are written into them), and the
people's kept ones, compiled before and after, stay theirs."""

from tests.registry.factories import ProjectFactory, push
from tests.registry.test_robots import project_robot, robot_client


def _names(client, path: str, **params) -> list[str]:
    response = client.get(path, params)
    assert response.status_code == 200, response.content
    return sorted(item["name"] for item in response.json())


def _search(client, term: str) -> tuple[list[str], list[str]]:
    found = client.get("/api/v2.0/search", {"q": term}).json()
    return (
        sorted(p["name"] for p in found["project"]),
        sorted(r["repository_name"] for r in found["repository"]),
    )


def test_robots_and_people_taking_turns(admin_client, alice, alice_client, bob, bob_client, anon):
    for name, owner in (("open", alice), ("team", alice), ("his", bob)):
        push(ProjectFactory(name=name, owner=owner, public=name == "open"), "app")
    access = [("repository", "list"), ("artifact", "list"), ("project", "read")]
    created = admin_client.post("/api/v2.0/robots", project_robot(access=access), format="json")
    assert created.status_code == 201, created.content
    robot = robot_client(created.json())
    expected = {
        "alice": (alice_client, ["open", "team"]),
        "robot": (robot, ["open", "team"]),
        "bob": (bob_client, ["his", "open"]),
        "anonymous": (anon, ["open"]),
        "admin": (admin_client, ["his", "open", "team"]),
    }
    for _ in range(2):
        for who, (client, projects) in expected.items():
            assert _names(client, "/api/v2.0/projects") == projects, who
            repositories = [f"{name}/app" for name in projects]
            assert _names(client, "/api/v2.0/repositories") == repositories, who
            assert _search(client, "app") == ([], repositories), who
            for term in ("e", "is"):
                wanted = (
                    [p for p in projects if term in p],
                    [r for r in repositories if term in r],
                )
                assert _search(client, term) == wanted, (who, term)
    assert robot.get("/api/v2.0/projects/his/repositories").status_code == 403
