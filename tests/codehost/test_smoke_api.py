import pytest

pytestmark = pytest.mark.django_db


def test_smoke(as_user, alice, bob):
    api = as_user(alice)
    r = api.post("/orgs", {"username": "acme"})
    assert r.status_code == 201, r.content
    r = api.post(
        "/orgs/acme/teams", {"name": "devs", "permission": "write", "units": ["repo.code"]}
    )
    assert r.status_code == 201, r.content
    print(r.json())
    r = api.post(
        "/org/acme/repos",
        {"name": "demo", "auto_init": True, "gitignores": "Python", "license": "MIT"},
    )
    assert r.status_code == 201, r.content
    print(r.json())
    r = as_user().get("/repos/search?q=dem")
    assert r.status_code == 200, r.content
    print(r.json(), dict(r.headers))
