"""Repository create, read, edit, delete with real git directories."""

import subprocess

import pytest

from codehost import git
from codehost.access import Actor
from codehost.models import Activity, Collaboration, OpType, Owner, RepoRedirect, Repository
from codehost.services import repo_settings, repositories
from tests.codehost.factories import UserFactory, owner_of

pytestmark = pytest.mark.django_db


def create(api, name="demo", path="/user/repos", **extra):
    return api.post(path, {"name": name, **extra})


def files_of(path, branch="main"):
    result = subprocess.run(
        ["git", "ls-tree", "--name-only", branch], cwd=path, capture_output=True, text=True
    )
    return sorted(result.stdout.split())


# --- create -------------------------------------------------------------------------------


def test_create_makes_an_empty_bare_repository(as_user, alice, git_root):
    response = create(as_user(alice))
    assert response.status_code == 201
    body = response.json()
    assert (body["full_name"], body["empty"], body["default_branch"]) == (
        "alice/demo",
        True,
        "main",
    )
    assert body["permissions"] == {"admin": True, "push": True, "pull": True}
    assert body["owner"]["email"] == "alice@example.com" and body["owner"]["username"] == "alice"
    assert body["created_at"].endswith("+00:00") and "." not in body["created_at"]
    assert response["Content-Type"] == "application/json;charset=utf-8"
    path = git_root / "alice" / "demo.git"
    assert git.is_empty(path)
    assert Activity.objects.filter(op_type=OpType.CREATE_REPO, repo__name="demo").exists()
    assert Owner.objects.get(name="alice").num_repos == 1


def test_auto_init_commits_readme_gitignore_and_license(as_user, alice, git_root):
    response = create(
        as_user(alice),
        description="A demo",
        auto_init=True,
        gitignores="Python,Node",
        license="MIT",
        default_branch="trunk",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["empty"] is False and body["default_branch"] == "trunk"
    assert body["size"] >= 0
    path = git_root / "alice" / "demo.git"
    assert files_of(path, "trunk") == [".gitignore", "LICENSE", "README.md"]
    readme = subprocess.run(
        ["git", "show", "trunk:README.md"], cwd=path, capture_output=True, text=True
    ).stdout
    assert readme == "# demo\n\nA demo\n"


def test_unknown_templates_are_rejected_before_anything_is_created(as_user, alice, git_root):
    api = as_user(alice)
    bad_readme = create(api, auto_init=True, readme="Fancy")
    assert bad_readme.status_code == 400
    assert bad_readme.json()["message"] == (
        "readme template does not exist, available templates: [Default]"
    )
    assert create(api, auto_init=True, gitignores="Cobol").status_code == 422
    assert create(api, auto_init=True, license="WTFPL").status_code == 422
    assert not Repository.objects.exists()
    assert not (git_root / "alice").exists()


def test_same_name_is_409_case_insensitively(as_user, alice):
    create(as_user(alice), "Demo")
    response = create(as_user(alice), "dEMO")
    assert response.status_code == 409
    assert response.json()["message"] == "The repository with the same name already exists."


@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("-", 422, "name is reserved [name: -]"),
        (".", 422, "name is reserved [name: .]"),
        ("x.git", 422, "name pattern is not allowed [pattern: *.git]"),
        ("x.wiki", 422, "name pattern is not allowed [pattern: *.wiki]"),
        ("has space", 422, "[Name]: AlphaDashDot"),
        ("", 422, "[Name]: Required"),
        ("x" * 101, 422, "[Name]: MaxSize"),
    ],
)
def test_reserved_and_invalid_names(as_user, alice, name, status, message):
    response = create(as_user(alice), name)
    assert response.status_code == status
    assert response.json()["message"] == message


def test_force_private_and_creation_limit(as_user, alice, settings):
    settings.CODEHOST_FORCE_PRIVATE = True
    settings.CODEHOST_MAX_CREATION_LIMIT = 1
    assert create(as_user(alice), "one").json()["private"] is True
    response = create(as_user(alice), "two")
    assert response.status_code == 403
    assert response.json()["message"] == "user has reached maximum limit of repositories [limit: 1]"


def test_org_account_cannot_use_user_repos(as_user, alice, acme):
    # An organization never signs in; a user whose namespace is an org is refused the same.
    org_user = UserFactory(username="orgbot")
    Owner.objects.filter(user=org_user).update(kind=Owner.Kind.ORGANIZATION)
    response = create(as_user(org_user))
    assert response.status_code == 422
    assert response.json()["message"] == "not allowed creating repository for organization"


def test_org_repo_creation_rules(as_user, alice, bob, admin, acme):
    for path in ("/orgs/acme/repos", "/org/acme/repos"):
        name = "via-" + path.split("/")[1]
        assert create(as_user(alice), name, path=path).status_code == 201
    assert create(as_user(alice), "x", path="/org/nope/repos").status_code == 422
    response = create(as_user(bob), "x", path="/org/acme/repos")
    assert response.status_code == 403
    assert response.json()["message"] == (
        "User is not allowed to create repositories in this organization."
    )
    assert create(as_user(admin), "by-admin", path="/org/acme/repos").status_code == 201
    hidden = Owner.objects.create(kind=Owner.Kind.ORGANIZATION, name="hidden", visibility="private")
    assert create(as_user(bob), "x", path="/org/hidden/repos").status_code == 404
    assert hidden.repositories.count() == 0


def test_team_with_create_right_may_create_org_repos(as_user, alice, bob, acme):
    team = (
        as_user(alice)
        .post(
            "/orgs/acme/teams",
            {"name": "makers", "units": ["repo.code"], "can_create_org_repo": True},
        )
        .json()
    )
    as_user(alice).put(f"/teams/{team['id']}/members/bob")
    assert create(as_user(bob), "made", path="/org/acme/repos").status_code == 201


def test_a_member_creating_an_org_repo_becomes_its_admin(as_user, alice, bob, acme):
    # Gitea's CreateRepositoryByExample: a creator the org's teams do not make an admin of
    # the new repository is added as an admin collaborator; else a private repository
    # created through a team without access to it is lost to its creator at once.
    team = as_user(alice).post(
        "/orgs/acme/teams",
        {"name": "makers", "units": ["repo.code"], "can_create_org_repo": True},
    )
    assert as_user(alice).put(f"/teams/{team.json()['id']}/members/bob").status_code == 204
    made = create(as_user(bob), "made", path="/orgs/acme/repos", private=True)
    assert made.status_code == 201
    assert made.json()["permissions"] == {"admin": True, "push": True, "pull": True}
    seen = as_user(bob).get("/repos/acme/made")
    assert seen.status_code == 200
    assert seen.json()["permissions"] == {"admin": True, "push": True, "pull": True}
    collaboration = Collaboration.objects.get(repo__name="made")
    assert (collaboration.user.name, collaboration.access_mode) == ("bob", 3)
    # An org owner is an admin through the Owners team: no collaboration is added.
    assert create(as_user(alice), "owned", path="/orgs/acme/repos").status_code == 201
    assert not Collaboration.objects.filter(repo__name="owned").exists()
    # Forking into the organization follows the same rule.
    assert create(as_user(alice), "base", auto_init=True).status_code == 201
    fork = as_user(bob).post("/repos/alice/base/forks", {"organization": "acme"})
    assert fork.status_code == 202, fork.content
    assert as_user(bob).get("/repos/acme/base").json()["permissions"]["admin"] is True


# --- read ---------------------------------------------------------------------------------


def test_get_by_name_and_id_respect_visibility(as_user, alice, bob):
    public = create(as_user(alice), "open").json()
    private = create(as_user(alice), "secret", private=True).json()
    assert as_user().get("/repos/alice/open").status_code == 200
    assert as_user().get("/repos/ALICE/OPEN").json()["id"] == public["id"]
    assert as_user().get("/repos/alice/secret").status_code == 404
    assert as_user(bob).get("/repos/alice/secret").status_code == 404
    assert as_user(bob).get(f"/repositories/{private['id']}").status_code == 404
    assert as_user(alice).get(f"/repositories/{private['id']}").json()["name"] == "secret"
    assert as_user(bob).get(f"/repositories/{public['id']}").json()["permissions"] == {
        "admin": False, "push": False, "pull": True,
    }  # fmt: skip
    assert as_user(alice).get("/repositories/99999").status_code == 404
    assert as_user().get("/repos/alice/nothing").json() == {
        "message": "not found", "url": "http://127.0.0.1:8000/api/swagger", "errors": None,
    }  # fmt: skip


def test_user_repos_lists_what_the_caller_owns_or_reaches(
    as_user, alice, bob, acme, django_assert_max_num_queries
):
    # Gitea's ListMyRepos (SearchRepository with OwnerID = the caller, collaborations
    # included): own repositories, collaborations, team repositories and the public
    # repositories of the caller's organizations; what CI systems sync from.
    api = as_user(alice)
    assert create(api, "vault", path="/orgs/acme/repos", private=True).status_code == 201
    assert create(api, "plaza", path="/orgs/acme/repos").status_code == 201
    assert create(api, "hidden", path="/orgs/acme/repos", private=True).status_code == 201
    assert create(api, "shared", private=True).status_code == 201
    assert create(api, "mine-not", private=True).status_code == 201
    team = api.post("/orgs/acme/teams", {"name": "devs", "units": ["repo.code"]}).json()
    assert api.put(f"/teams/{team['id']}/members/bob").status_code == 204
    assert api.put(f"/teams/{team['id']}/repos/acme/vault").status_code == 204
    assert api.put("/repos/alice/shared/collaborators/bob", {}).status_code == 204
    assert create(as_user(bob), "own").status_code == 201
    with django_assert_max_num_queries(12):
        listed = as_user(bob).get("/user/repos")
    assert listed.status_code == 200
    names = [repo["full_name"] for repo in listed.json()]
    assert names == ["bob/own", "acme/plaza", "alice/shared", "acme/vault"]
    assert listed["X-Total-Count"] == "4"
    # A public-only token lists only what an anonymous caller would see of them.
    token = as_user(bob).post(
        "/users/bob/tokens",
        {"name": "p", "scopes": ["public-only", "read:user", "read:repository"]},
    )
    scoped = as_user(bob, auth=f"token {token.json()['sha1']}").get("/user/repos")
    assert [repo["full_name"] for repo in scoped.json()] == ["bob/own", "acme/plaza"]


def test_collaborator_gets_their_mode(as_user, alice, bob):
    create(as_user(alice), "secret", private=True)
    assert (
        as_user(alice)
        .put("/repos/alice/secret/collaborators/bob", {"permission": "write"})
        .status_code
        == 204
    )
    assert as_user(alice).get("/repos/alice/secret/collaborators/bob").status_code == 204
    assert [u["login"] for u in as_user(alice).get("/repos/alice/secret/collaborators").json()] == [
        "bob"
    ]
    assert as_user(bob).get("/repos/alice/secret").json()["permissions"] == {
        "admin": False, "push": True, "pull": True,
    }  # fmt: skip
    assert as_user(bob).patch("/repos/alice/secret", {"description": "x"}).status_code == 403
    assert as_user(alice).delete("/repos/alice/secret/collaborators/bob").status_code == 204
    assert as_user(bob).get("/repos/alice/secret").status_code == 404


# --- edit ---------------------------------------------------------------------------------


def test_rename_moves_directory_and_redirects_the_old_name(as_user, alice, git_root):
    api = as_user(alice)
    create(api, "old", auto_init=True)
    response = api.patch("/repos/alice/old", {"name": "new", "description": "d"})
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["description"]) == ("new", "d")
    assert not (git_root / "alice" / "old.git").exists()
    assert files_of(git_root / "alice" / "new.git") == ["README.md"]
    moved = api.get("/repos/alice/old?x=1")
    assert moved.status_code == 301
    assert moved["Location"] == "/api/v1/repos/alice/new?x=1"
    assert RepoRedirect.objects.filter(lower_name="old").exists()
    rename = Activity.objects.get(op_type=OpType.RENAME_REPO, user__name="alice")
    assert rename.content == "old"
    # A new repository with the old name shadows the redirect.
    create(api, "old")
    assert api.get("/repos/alice/old").json()["name"] == "old"


def test_a_rename_racing_another_rename_moves_the_directory_it_finds(as_user, alice, git_root):
    # Two PATCHes read the repository as "old"; the first renames it to "first" (and moves
    # its directory), then the second, with what it read, renames it to "second".
    api = as_user(alice)
    create(api, "old", auto_init=True)
    stale = Repository.objects.select_related("owner").get(name="old")
    assert api.patch("/repos/alice/old", {"name": "first"}).status_code == 200
    repo_settings.rename_repo(Actor(owner=owner_of(alice)), stale, "second")
    assert Repository.objects.get(pk=stale.pk).name == "second"
    assert files_of(git_root / "alice" / "second.git") == ["README.md"]
    assert not (git_root / "alice" / "first.git").exists()
    assert api.get("/repos/alice/first").status_code == 301
    assert api.get("/repos/alice/old").status_code == 301


def test_deletions_racing_a_rename_or_each_other_count_once_and_remove_the_directory(
    as_user, alice, git_root, django_capture_on_commit_callbacks
):
    api = as_user(alice)
    create(api, "old", auto_init=True)
    create(api, "kept")
    # Two DELETEs read the repository, then a rename goes first.
    stale, second = (Repository.objects.select_related("owner").get(name="old") for _ in "ab")
    assert api.patch("/repos/alice/old", {"name": "renamed"}).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        repositories.delete_repo(stale)
    assert not (git_root / "alice" / "renamed.git").exists()
    assert Owner.objects.get(name="alice").num_repos == 1
    # The second deletion finds it gone: it counts nothing out again.
    repositories.delete_repo(second)
    assert Owner.objects.get(name="alice").num_repos == 1
    assert [p.name for p in (git_root / "alice").iterdir()] == ["kept.git"]


def test_rename_conflicts_and_bad_names_are_422(as_user, alice):
    api = as_user(alice)
    create(api, "one")
    create(api, "two")
    taken = api.patch("/repos/alice/two", {"name": "ONE"})
    assert taken.status_code == 422
    assert taken.json()["message"] == "repository already exists [uname: alice, name: ONE]"
    assert api.patch("/repos/alice/two", {"name": "x.git"}).status_code == 422
    assert api.patch("/repos/alice/two", {"name": "TWO"}).json()["name"] == "TWO"


def test_force_private_blocks_going_public_for_non_admins(as_user, alice, admin, settings):
    create(as_user(alice), "secret", private=True)
    settings.CODEHOST_FORCE_PRIVATE = True
    response = as_user(alice).patch("/repos/alice/secret", {"private": False})
    assert response.status_code == 422
    assert response.json()["message"] == "cannot change private repository to public"
    assert (
        as_user(admin).patch("/repos/alice/secret", {"private": False}).json()["private"] is False
    )


def test_fork_follows_base_private(as_user, alice, bob):
    create(as_user(alice), "base", auto_init=True)
    fork = as_user(bob).post("/repos/alice/base/forks", {})
    assert fork.status_code == 202
    assert fork.json()["fork"] is True and fork.json()["parent"]["full_name"] == "alice/base"
    assert as_user(bob).patch("/repos/bob/base", {"private": True}).json()["private"] is False
    assert as_user(bob).post("/repos/alice/base/forks", {}).status_code == 409
    assert as_user().get("/repos/alice/base").json()["forks_count"] == 1


def test_fork_of_a_public_repository_in_a_private_org_is_private(as_user, alice, bob):
    # Gitea's ForkRepository: IsPrivate = base private || base owner's visibility private;
    # a public fork would hand the code of a private organization to everybody.
    org = as_user(alice).post("/orgs", {"username": "hidden", "visibility": "private"})
    assert org.status_code == 201
    assert (
        create(as_user(alice), "code", path="/orgs/hidden/repos", auto_init=True).status_code == 201
    )
    fork = as_user(alice).post("/repos/hidden/code/forks", {})
    assert fork.status_code == 202, fork.content
    assert fork.json()["private"] is True
    assert Repository.objects.get(owner__name="alice", name="code").private is True
    assert as_user(bob).get("/repos/alice/code").status_code == 404
    assert as_user().get("/repos/search?q=code").json()["data"] == []


def test_edit_issue_units_external_tracker_and_defaults(as_user, alice):
    api = as_user(alice)
    create(api)
    bad = api.patch(
        "/repos/alice/demo",
        {"has_issues": True, "external_tracker": {"external_tracker_url": "htp://x"}},
    )
    assert bad.status_code == 422 and bad.json()["message"] == "External tracker URL not valid"
    bad_format = api.patch(
        "/repos/alice/demo",
        {
            "has_issues": True,
            "external_tracker": {
                "external_tracker_url": "https://tracker.example.com",
                "external_tracker_format": "https://tracker.example.com/{user}/{bogus}",
            },
        },
    )
    assert bad_format.json()["message"] == "External tracker URL format not valid"
    body = api.patch(
        "/repos/alice/demo",
        {
            "has_issues": True,
            "external_tracker": {
                "external_tracker_url": "https://tracker.example.com",
                "external_tracker_format": "https://tracker.example.com/{user}/{repo}/{index}",
                "external_tracker_style": "numeric",
            },
        },
    ).json()
    assert body["has_issues"] is True and "internal_tracker" not in body
    assert body["external_tracker"]["external_tracker_url"] == "https://tracker.example.com"
    body = api.patch("/repos/alice/demo", {"description": "keep units"}).json()
    assert "external_tracker" in body
    body = api.patch("/repos/alice/demo", {"has_issues": True}).json()
    assert body["internal_tracker"] == {
        "enable_time_tracker": True,
        "allow_only_contributors_to_track_time": True,
        "enable_issue_dependencies": True,
    }
    body = api.patch(
        "/repos/alice/demo",
        {"has_issues": True, "internal_tracker": {"enable_time_tracker": False}},
    ).json()
    assert body["internal_tracker"]["enable_time_tracker"] is False
    body = api.patch("/repos/alice/demo", {"has_issues": False}).json()
    assert body["has_issues"] is False and "internal_tracker" not in body


def test_edit_wiki_and_pull_units(as_user, alice):
    api = as_user(alice)
    create(api)
    bad = api.patch(
        "/repos/alice/demo", {"has_wiki": True, "external_wiki": {"external_wiki_url": "nope"}}
    )
    assert bad.status_code == 422 and bad.json()["message"] == "Invalid external wiki URL"
    body = api.patch(
        "/repos/alice/demo",
        {"has_wiki": True, "external_wiki": {"external_wiki_url": "https://wiki.example.com"}},
    ).json()
    assert body["has_wiki"] and body["external_wiki"] == {
        "external_wiki_url": "https://wiki.example.com"
    }
    assert "external_wiki" not in api.patch("/repos/alice/demo", {"has_wiki": True}).json()
    assert api.patch("/repos/alice/demo", {"has_wiki": False}).json()["has_wiki"] is False
    body = api.patch("/repos/alice/demo", {"has_pull_requests": False}).json()
    assert body["has_pull_requests"] is False and body["allow_rebase"] is False
    body = api.patch("/repos/alice/demo", {"has_pull_requests": True, "allow_rebase": False}).json()
    flags = ("allow_rebase", "allow_squash_merge", "ignore_whitespace_conflicts")
    assert [body[flag] for flag in flags] == [False, True, False]
    body = api.patch("/repos/alice/demo", {"default_delete_branch_after_merge": True}).json()
    assert body["default_delete_branch_after_merge"] is True and body["allow_rebase"] is False


def test_archive_and_unarchive_and_mirror_refusal(as_user, alice):
    api = as_user(alice)
    create(api)
    body = api.patch("/repos/alice/demo", {"archived": True}).json()
    assert body["archived"] is True and not body["archived_at"].startswith("1970")
    body = api.patch("/repos/alice/demo", {"archived": False}).json()
    assert body["archived"] is False and body["archived_at"].startswith("1970")
    Repository.objects.filter(name="demo").update(is_mirror=True)
    response = api.patch("/repos/alice/demo", {"description": "kept", "archived": True})
    assert response.status_code == 422
    assert response.json()["message"] == "repo is a mirror, cannot archive/un-archive"
    # Earlier steps stay applied, as in Gitea.
    assert Repository.objects.get(name="demo").description == "kept"


def test_edit_permissions(as_user, alice, bob):
    create(as_user(alice), "open")
    create(as_user(alice), "secret", private=True)
    assert as_user(bob).patch("/repos/alice/open", {"description": "x"}).status_code == 403
    assert as_user(bob).patch("/repos/alice/secret", {"description": "x"}).status_code == 404
    assert as_user().patch("/repos/alice/open", {"description": "x"}).status_code == 404
    assert as_user(alice).patch("/repos/alice/nope", {"description": "x"}).status_code == 404
    bad = as_user(alice).patch("/repos/alice/open", {"default_merge_style": "yolo"})
    assert bad.status_code == 422 and bad.json()["message"] == "[DefaultMergeStyle]: In"


# --- delete -------------------------------------------------------------------------------


def test_delete_removes_the_directory_after_commit(
    as_user, alice, git_root, django_capture_on_commit_callbacks
):
    create(as_user(alice), auto_init=True)
    path = git_root / "alice" / "demo.git"
    with django_capture_on_commit_callbacks(execute=True):
        assert as_user(alice).delete("/repos/alice/demo").status_code == 204
    assert not path.exists()
    assert not Repository.objects.exists()
    assert Owner.objects.get(name="alice").num_repos == 0


def test_repositories_of_a_user_or_an_organization(
    as_user, alice, bob, acme, django_assert_max_num_queries
):
    """GET /users/{username}/repos (Gitea's ListUserRepos, which also answers GET
    /orgs/{org}/repos): what the caller sees of the owner's repositories."""
    api = as_user(alice)
    assert create(api, "open").status_code == 201
    assert create(api, "closed", private=True).status_code == 201
    assert create(api, "plaza", path="/orgs/acme/repos").status_code == 201
    assert create(api, "vault", path="/orgs/acme/repos", private=True).status_code == 201

    def names(caller, owner):
        response = caller.get(f"/users/{owner}/repos")
        assert response.status_code == 200, response.content
        return [repo["full_name"] for repo in response.json()]

    assert names(api, "alice") == ["alice/closed", "alice/open"]
    assert names(as_user(bob), "ALICE") == ["alice/open"]
    assert names(as_user(), "acme") == ["acme/plaza"]
    assert names(api, "acme") == ["acme/plaza", "acme/vault"]
    assert api.get("/users/acme/repos").json() == api.get("/orgs/acme/repos").json()
    assert as_user().get("/users/nobody/repos").status_code == 404
    with django_assert_max_num_queries(8):
        assert as_user(bob).get("/users/alice/repos?limit=1").status_code == 200


def test_delete_org_repo_needs_org_owner_or_admin(as_user, alice, bob, admin, acme):
    as_user(alice).post("/orgs/acme/repos", {"name": "one"})
    as_user(alice).post("/orgs/acme/repos", {"name": "two"})
    team = as_user(alice).post("/orgs/acme/teams", {"name": "admins", "permission": "admin"}).json()
    as_user(alice).put(f"/teams/{team['id']}/members/bob")
    as_user(alice).put(f"/teams/{team['id']}/repos/acme/one")
    response = as_user(bob).delete("/repos/acme/one")
    assert response.status_code == 403
    assert as_user(alice).delete("/repos/acme/one").status_code == 204
    assert as_user(admin).delete("/repos/acme/two").status_code == 204
    assert as_user(bob).delete("/repos/alice/none").status_code == 404


def test_topics_replace_and_validate(as_user, alice):
    api = as_user(alice)
    create(api)
    assert api.put("/repos/alice/demo/topics", {"topics": ["Go", "web-app"]}).status_code == 204
    assert api.get("/repos/alice/demo/topics").json() == {"topics": ["go", "web-app"]}
    bad = api.put("/repos/alice/demo/topics", {"topics": ["ok", "-bad"]})
    assert bad.status_code == 422
    assert bad.json()["invalidTopics"] == ["-bad"]
    assert api.get("/repos/alice/demo").json()["topics"] == ["go", "web-app"]


def test_a_huge_topics_body_is_refused_in_linear_time(as_user, alice):
    """Gitea counts the distinct topics after dropping repeats; with a list for the
    repeats a body of 50,000 topics took half a minute of a web thread (100,000: three)."""
    import time

    api = as_user(alice)
    create(api)
    started = time.monotonic()
    many = api.put("/repos/alice/demo/topics", {"topics": [f"t{n}" for n in range(50_000)]})
    assert many.status_code == 422
    assert many.json()["message"] == "Exceeding maximum number of topics per repo"
    assert time.monotonic() - started < 10
    repeated = api.put("/repos/alice/demo/topics", {"topics": ["a", "b", "a"] * 10_000})
    assert repeated.status_code == 204
    assert api.get("/repos/alice/demo/topics").json() == {"topics": ["a", "b"]}


def test_stars(as_user, alice, bob):
    create(as_user(alice))
    api = as_user(bob)
    assert api.put("/user/starred/alice/demo").status_code == 204
    assert api.put("/user/starred/alice/demo").status_code == 204
    assert api.get("/user/starred/alice/demo").status_code == 204
    assert api.get("/repos/alice/demo").json()["stars_count"] == 1
    assert [r["full_name"] for r in api.get("/user/starred").json()] == ["alice/demo"]
    assert api.get("/user").json()["starred_repos_count"] == 1
    assert api.delete("/user/starred/alice/demo").status_code == 204
    assert api.get("/user/starred/alice/demo").status_code == 404
    assert api.get("/repos/alice/demo").json()["stars_count"] == 0


def test_blocks_stop_stars_and_collaboration(as_user, alice, bob):
    create(as_user(alice))
    as_user(bob).put("/user/starred/alice/demo")
    as_user(alice).put("/repos/alice/demo/collaborators/bob")
    assert as_user(alice).put("/user/blocks/bob").status_code == 204
    assert as_user(alice).get("/user/blocks/bob").status_code == 204
    assert as_user(alice).put("/user/blocks/bob").status_code == 400
    assert not Collaboration.objects.exists()
    assert as_user().get("/repos/alice/demo").json()["stars_count"] == 0
    assert as_user(bob).put("/user/starred/alice/demo").status_code == 403
    assert as_user(alice).delete("/user/blocks/bob").status_code == 204
    assert as_user(alice).delete("/user/blocks/bob").status_code == 400
    assert as_user(bob).put("/user/starred/alice/demo").status_code == 204
    assert as_user(alice).put("/user/blocks/alice").status_code == 400
