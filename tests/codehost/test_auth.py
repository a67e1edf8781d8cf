"""Authentication as Gitea: Basic, token header, query token, scopes, bad credentials."""

import base64

import pytest

from codehost.models import AccessToken
from config.auth import hash_token
from tests.codehost.conftest import basic

pytestmark = pytest.mark.django_db


def make_token(as_user, user, scopes=("all",), name="ci"):
    response = as_user(user).post(
        f"/users/{user.username}/tokens", {"name": name, "scopes": list(scopes)}
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_token_creation_answer_and_storage(as_user, alice):
    body = make_token(as_user, alice, ["write:repository", "read:user", "read:repository"])
    assert list(body) == [
        "id",
        "name",
        "sha1",
        "token_last_eight",
        "scopes",
        "created_at",
        "last_used_at",
    ]
    assert len(body["sha1"]) == 40 and body["token_last_eight"] == body["sha1"][-8:]
    assert body["scopes"] == ["read:user", "write:repository"]
    stored = AccessToken.objects.get(pk=body["id"])
    assert stored.token_hash == hash_token(body["sha1"]) and body["sha1"] not in stored.scopes
    listed = as_user(alice).get("/users/alice/tokens").json()
    assert listed[0]["sha1"] == "" and listed[0]["name"] == "ci"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"name": "x"}, "access token must have a scope"),
        ({"name": "x", "scopes": []}, "access token must have a scope"),
        (
            {"name": "x", "scopes": ["write:everything"]},
            "invalid access token scope provided: write:everything",
        ),
    ],
)
def test_token_creation_errors(as_user, alice, body, message):
    response = as_user(alice).post("/users/alice/tokens", body)
    assert response.status_code == 400
    assert response.json()["message"] == message


def test_token_name_unique_and_creation_needs_basic_as_self(as_user, alice, bob, admin):
    token = make_token(as_user, alice)
    duplicate = as_user(alice).post("/users/alice/tokens", {"name": "ci", "scopes": ["all"]})
    assert duplicate.json()["message"] == "access token name has been used already"
    by_token = as_user(auth=f"token {token['sha1']}").post(
        "/users/alice/tokens", {"name": "y", "scopes": ["all"]}
    )
    assert by_token.status_code == 401 and by_token.json()["message"] == "auth required"
    other = as_user(bob).post("/users/alice/tokens", {"name": "y", "scopes": ["all"]})
    assert other.status_code == 403
    assert (
        as_user(admin).post("/users/alice/tokens", {"name": "y", "scopes": ["all"]}).status_code
        == 201
    )
    assert as_user(alice).delete("/users/alice/tokens/ci").status_code == 204
    assert as_user(alice).delete("/users/alice/tokens/ci").status_code == 404
    # Names that are no int64 id: "²" passes str.isdigit, past int64 (past int()'s 4300
    # digits too), a NUL (were 500s).
    for name in ("%C2%B2", "9" * 30, "9" * 5000, "0" * 5000 + "1", "a%00b"):
        gone = as_user(alice).delete(f"/users/alice/tokens/{name}")
        assert gone.status_code == 404, name
        assert gone.json()["message"] == "not found"


def test_every_way_of_sending_a_token(as_user, alice):
    raw = make_token(as_user, alice)["sha1"]
    encoded = lambda text: "Basic " + base64.b64encode(text.encode()).decode()  # noqa: E731
    for auth in (
        f"token {raw}",
        f"Bearer {raw}",
        f"TOKEN {raw}",
        encoded(f"{raw}:"),
        encoded(f"{raw}:x-oauth-basic"),
        encoded(f"anyone:{raw}"),
    ):
        response = as_user(auth=auth).get("/user")
        assert response.status_code == 200, auth
        assert response.json()["login"] == "alice"
    for param in ("token", "access_token"):
        response = as_user().get(f"/user?{param}={raw}")
        assert response.json()["login"] == "alice"
        assert response["X-Gitea-Warning"].startswith("token and access_token API authentication")


def test_token_lookup_is_one_query_and_revocation_acts_at_once(
    as_user, alice, django_assert_num_queries
):
    """The token, its account and namespace come from one query; nothing of it is cached,
    so a deleted token or a deactivated account is refused on the next request."""
    raw = make_token(as_user, alice)["sha1"]
    client = as_user(auth=f"token {raw}")
    assert client.get("/version").status_code == 200  # last_used_at written (once a minute)
    with django_assert_num_queries(1):
        assert client.get("/version").status_code == 200
    assert client.get("/user").json()["login"] == "alice"
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert client.get("/version").status_code == 403
    alice.is_active = True
    alice.save(update_fields=["is_active"])
    assert client.get("/version").status_code == 200
    AccessToken.objects.filter(token_hash=hash_token(raw)).delete()
    assert client.get("/version").status_code == 401


PROHIBITED = "This account is prohibited from signing in, please contact your site administrator."


def test_a_deactivated_account_with_right_credentials_is_403_by_every_scheme(as_user, alice):
    """Gitea's verifyAuthWithOptions: the credentials are right, the account may not sign
    in: 403 with a bare message (no `url`), not 401 (which has clients ask again)."""
    raw = make_token(as_user, alice)["sha1"]
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    for auth in (
        basic("alice"),
        f"token {raw}",
        f"Bearer {raw}",
        basic(raw, ""),
        basic("alice", raw),
    ):
        response = as_user(auth=auth).get("/repos/search")
        assert (response.status_code, response.json()) == (403, {"message": PROHIBITED}), auth
    assert as_user().get(f"/user?token={raw}").json() == {"message": PROHIBITED}
    # A wrong password of that account is still a wrong password.
    wrong = as_user(auth=basic("alice", "wrong")).get("/repos/search")
    assert (wrong.status_code, wrong.json()["message"]) == (
        401,
        "invalid username, password or token",
    )


@pytest.mark.parametrize(
    "auth", ["token " + "0" * 40, basic("alice", "wrong"), "Basic !!!notbase64", basic("ghost")]
)
def test_bad_credentials_are_401_even_on_public_endpoints(as_user, alice, auth):
    response = as_user(auth=auth).get("/repos/search")
    assert response.status_code == 401
    assert response.json()["message"] == "invalid username, password or token"
    assert as_user().get("/repos/search?token=nope").status_code == 401


def test_token_scopes_are_enforced_per_route_category(as_user, alice, acme):
    raw = make_token(as_user, alice, ["read:repository"])["sha1"]
    api = as_user(auth=f"token {raw}")
    assert api.get("/repos/search").status_code == 200
    refused = api.post("/user/repos", {"name": "x"})
    assert refused.status_code == 403
    assert refused.json()["message"] == (
        "token does not have at least one of required scope(s), "
        "required=[write:user write:repository], token scope=read:repository"
    )
    assert api.get("/orgs/acme/teams").status_code == 403
    assert api.get("/version").status_code == 200
    writer = as_user(
        auth="token " + make_token(as_user, alice, ["write:organization"], "o")["sha1"]
    )
    assert writer.get("/orgs/acme/teams").status_code == 200  # write implies read
    assert writer.post("/org/acme/repos", {"name": "x"}).status_code == 403  # needs repository too
    both = make_token(as_user, alice, ["write:organization", "write:repository"], "both")["sha1"]
    assert as_user(auth=f"token {both}").post("/org/acme/repos", {"name": "x"}).status_code == 201


def test_signin_required_routes_answer_401_token_is_required(as_user):
    for path in ("/user", "/user/teams", "/teams/1"):
        response = as_user().get(path)
        assert response.status_code == 401
        assert response.json()["message"] == "token is required"


def test_sudo_lets_a_site_admin_act_as_another_user(as_user, admin, alice, bob):
    api = as_user(admin, auth=f"token {make_token(as_user, admin)['sha1']}")
    assert api.get("/user?sudo=alice").json()["login"] == "alice"
    assert api.get("/user", HTTP_SUDO="Alice").json()["login"] == "alice"
    created = api.post("/user/repos?sudo=bob", {"name": "made-for-bob"})
    assert created.status_code == 201 and created.json()["full_name"] == "bob/made-for-bob"
    # Acting as a plain user, admin-only routes are refused.
    assert api.post("/admin/users?sudo=alice", {}).status_code == 403
    missing = api.get("/user?sudo=nobody")
    assert missing.status_code == 404


@pytest.mark.parametrize("who", ["alice", None])
def test_sudo_is_refused_to_anybody_but_site_admins(as_user, alice, bob, who):
    api = as_user(alice) if who else as_user()
    for response in (api.get("/user?sudo=bob"), api.get("/repos/search", HTTP_SUDO="bob")):
        assert response.status_code == 403
        assert response.json() == {"message": "Only administrators allowed to sudo."}


def test_public_only_tokens_reach_public_resources_only(as_user, alice, acme):
    api = as_user(alice)
    assert api.post("/user/repos", {"name": "open"}).status_code == 201
    assert api.post("/user/repos", {"name": "closed", "private": True}).status_code == 201
    assert api.post("/orgs", {"username": "inner", "visibility": "limited"}).status_code == 201
    token = make_token(as_user, alice, ["public-only", "write:repository", "read:user",
                                        "read:organization"])["sha1"]  # fmt: skip
    scoped = as_user(alice, auth=f"token {token}")
    assert scoped.get("/repos/alice/open").status_code == 200
    refused = scoped.get("/repos/alice/closed")
    assert refused.status_code == 403
    assert refused.json()["message"] == "token scope is limited to public repos"
    private_id = api.get("/repos/alice/closed").json()["id"]
    assert scoped.get(f"/repositories/{private_id}").status_code == 403
    found = scoped.get("/repos/search").json()["data"]
    assert [repo["full_name"] for repo in found] == ["alice/open"]
    assert [r["full_name"] for r in api.get("/repos/search").json()["data"]] == [
        "alice/closed", "alice/open",
    ]  # fmt: skip
    # Lists too answer what an anonymous caller would see (Gitea: public repositories of
    # public owners): the caller's own, an organization's, forks and stars.
    assert api.post("/orgs/acme/repos", {"name": "vault", "private": True}).status_code == 201
    assert api.post("/orgs/acme/repos", {"name": "plaza"}).status_code == 201
    for starred in ("alice/closed", "alice/open", "acme/vault"):
        assert api.put(f"/user/starred/{starred}").status_code == 204
    for path, everything, public in (
        # Gitea's ListMyRepos: the organization's repositories too (alice owns acme).
        (
            "/user/repos",
            ["acme/plaza", "acme/vault", "alice/closed", "alice/open"],
            ["acme/plaza", "alice/open"],
        ),
        ("/orgs/acme/repos", ["acme/plaza", "acme/vault"], ["acme/plaza"]),
        ("/user/starred", ["acme/vault", "alice/closed", "alice/open"], ["alice/open"]),
    ):
        assert sorted(r["full_name"] for r in api.get(path).json()) == everything, path
        listed = scoped.get(path)
        assert sorted(r["full_name"] for r in listed.json()) == public, path
        assert listed["X-Total-Count"] == str(len(public)), path
    assert scoped.get("/orgs/acme/teams").status_code == 200
    limited = scoped.get("/orgs/inner/teams")
    assert limited.status_code == 403
    assert limited.json()["message"] == "token scope is limited to public orgs"
    assert scoped.get("/users/acme").status_code == 200
    # Gitea's user-scope check skips organizations; ours refuses a non-public one here too.
    org_as_user = scoped.get("/users/inner")
    assert org_as_user.status_code == 403
    assert org_as_user.json()["message"] == "token scope is limited to public orgs"
    teams = scoped.get("/user/teams")
    assert teams.status_code == 403
    assert teams.json()["message"] == "this endpoint is not available for public-only tokens"


def test_the_list_of_organizations_follows_gitea_org_get_all(as_user, alice, bob, admin):
    # Gitea's orgGetAll: public organizations to anonymous callers and public-only tokens,
    # public and limited ones to users (a private one not even to its members), all of
    # them to site admins.
    for name, visibility in (("open", "public"), ("inner", "limited"), ("closed", "private")):
        created = as_user(alice).post("/orgs", {"username": name, "visibility": visibility})
        assert created.status_code == 201
    token = make_token(as_user, alice, ["public-only", "read:organization"])["sha1"]
    for caller, names in (
        (as_user(), ["open"]),
        (as_user(alice, auth=f"token {token}"), ["open"]),
        (as_user(alice), ["inner", "open"]),
        (as_user(bob), ["inner", "open"]),
        (as_user(admin), ["closed", "inner", "open"]),
    ):
        listed = caller.get("/orgs")
        assert listed.status_code == 200
        assert [org["name"] for org in listed.json()] == names
        assert listed["X-Total-Count"] == str(len(names))
