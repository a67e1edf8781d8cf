"""Git over smart HTTP applies the API's rules for the same credential: token scopes, the
`public-only` token, an account that must change its password. Real git CLI and raw HTTP
against a live server."""

import pytest
import requests
from django.conf import settings

from codehost import git as codehost_git
from codehost.access import Actor
from codehost.models import Owner
from codehost.services import repositories
from tests.security.codehost_support import basic, git, git_url, owner, token

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def codehost_git_root(settings, tmp_path):
    settings.CODEHOST_GIT_ROOT = tmp_path / "git"


@pytest.fixture
def alice():
    alice = owner("alice")
    for name, private in (("open", False), ("closed", True)):
        options = repositories.RepoOptions(name=name, private=private, auto_init=True)
        repositories.create_repo(Actor(owner=alice), alice, options)
    return alice


def refs_answer(live_server, path: str, auth: str, service: str = "git-upload-pack"):
    return requests.get(f"{live_server.url}/{path}/info/refs", params={"service": service},
                        headers={"Authorization": auth}, timeout=30)  # fmt: skip


def push_new_branch(tmp_path, address: str, branch: str):
    work = tmp_path / f"work-{branch}"
    work.mkdir()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    git("init", "-q", "-b", "main", cwd=work, home=home)
    (work / "f.txt").write_text(branch)
    git("add", "f.txt", cwd=work, home=home)
    git("commit", "-q", "-m", branch, cwd=work, home=home)
    return git("push", "-q", address, f"HEAD:refs/heads/{branch}", cwd=work, home=home,
               check=False)  # fmt: skip


def clone(tmp_path, address: str, name: str, *options: str):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return git(*options, "clone", "-q", address, str(tmp_path / name), home=home, check=False)


def test_a_public_only_token_reaches_public_repositories_only(live_server, alice, tmp_path):
    raw = token(alice, ["public-only", "write:repository"])
    assert (
        clone(tmp_path, git_url(live_server, "alice/open.git", "alice", raw), "a").returncode == 0
    )
    assert push_new_branch(tmp_path, git_url(live_server, "alice/open.git", "alice", raw),
                           "public").returncode == 0  # fmt: skip
    refused = clone(tmp_path, git_url(live_server, "alice/closed.git", "alice", raw), "b")
    assert refused.returncode != 0 and "403" in refused.stderr
    pushed = push_new_branch(tmp_path, git_url(live_server, "alice/closed.git", "alice", raw),
                             "private")  # fmt: skip
    assert pushed.returncode != 0
    assert "refs/heads/private" not in codehost_git.refs(codehost_git.repo_path("alice", "closed"))
    answer = refs_answer(live_server, "alice/closed.git", basic("alice", raw))
    assert (answer.status_code, answer.text) == (403, "token scope is limited to public repos\n")
    # The owner's password still reaches both.
    assert refs_answer(live_server, "alice/closed.git", basic("alice")).status_code == 200


def test_an_account_that_must_change_its_password_is_refused_git(live_server, alice, tmp_path):
    Owner.objects.filter(pk=alice.pk).update(must_change_password=True)
    refused = clone(tmp_path, git_url(live_server, "alice/closed.git", "alice", "password"), "c")
    assert refused.returncode != 0 and "403" in refused.stderr
    # git sends credentials only when challenged (a public repository never challenges);
    # when it does send them, they are refused there too.
    answer = refs_answer(live_server, "alice/open.git", basic("alice"))
    assert answer.status_code == 403
    assert answer.text == (
        f"You must change your password. Change it at: {settings.EXTERNAL_URL}"
        "/user/change_password\n"
    )
    # Its tokens are refused alike, as on the API.
    raw = token(alice, ["write:repository"])
    assert refs_answer(live_server, "alice/open.git", basic("alice", raw)).status_code == 403
    # Anonymous cloning of the public repository is unaffected.
    assert clone(tmp_path, git_url(live_server, "alice/open.git"), "anon").returncode == 0


def test_a_read_only_token_clones_but_cannot_push(live_server, alice, tmp_path):
    raw = token(alice, ["read:repository"])
    assert (
        clone(tmp_path, git_url(live_server, "alice/closed.git", "alice", raw), "c").returncode == 0
    )
    pushed = push_new_branch(tmp_path, git_url(live_server, "alice/closed.git", "alice", raw),
                             "nope")  # fmt: skip
    assert pushed.returncode != 0 and "403" in pushed.stderr
    answer = refs_answer(live_server, "alice/closed.git", basic("alice", raw), "git-receive-pack")
    assert (answer.status_code, answer.text) == (403, "token does not have the required scope\n")


@pytest.mark.parametrize(
    "rest",
    [
        "objects/../config",
        "objects/../../closed.git/config",
        "objects/%2e%2e/config",
        "objects/x/../../config",
        "objects/info/../../config",
        "objects/info/..",
        "objects/ab/not-a-hash",
    ],
)
def test_git_paths_outside_gitea_s_dumb_http_routes_are_404(client, alice, rest):
    """Only Gitea's routes (info/refs, the two services, HEAD, objects/info/*, loose objects,
    pack files) reach git; anything else, `..` included, is 404 (git refused it with a 500)."""
    response = client.get(f"/alice/open.git/{rest}")
    assert response.status_code == 404
    assert b"[core]" not in response.content


@pytest.mark.parametrize("path", ["alice%00/open.git", "alice/open%00.git"])
def test_a_name_holding_a_nul_is_no_repository(client, alice, path):
    # Was a 500 on PostgreSQL, which cannot compare text holding a NUL.
    response = client.get(f"/{path}/info/refs", {"service": "git-upload-pack"})
    assert response.status_code == 404


def test_gitea_s_dumb_http_routes_still_answer(client, alice):
    path = codehost_git.repo_path("alice", "open")
    packs = client.get("/alice/open.git/objects/info/packs")
    assert packs.status_code == 200
    head = client.get("/alice/open.git/HEAD")
    assert head.status_code == 200
    loose = next((path / "objects").glob("[0-9a-f][0-9a-f]/*"))
    found = client.get(f"/alice/open.git/objects/{loose.parent.name}/{loose.name}")
    assert found.status_code == 200


def test_a_token_in_gitea_s_other_places_reaches_git_too(live_server, alice, tmp_path):
    """Gitea's git routes take a token as the API does: `Authorization: token|bearer <t>`
    (CI jobs set it with http.extraHeader) or `?token=`/`?access_token=`, scopes applied."""
    raw = token(alice, ["read:repository"])
    extra = f"http.extraHeader=Authorization: token {raw}"
    cloned = clone(tmp_path, git_url(live_server, "alice/closed.git"), "x", "-c", extra)
    assert cloned.returncode == 0, cloned.stderr
    for auth in (f"token {raw}", f"Bearer {raw}"):
        assert refs_answer(live_server, "alice/closed.git", auth).status_code == 200
    for name in ("token", "access_token"):
        params = {"service": "git-upload-pack", name: raw}
        answer = requests.get(
            f"{live_server.url}/alice/closed.git/info/refs", params=params, timeout=30
        )
        assert answer.status_code == 200
    answer = refs_answer(live_server, "alice/closed.git", f"token {raw}", "git-receive-pack")
    assert (answer.status_code, answer.text) == (403, "token does not have the required scope\n")
    wrong = refs_answer(live_server, "alice/open.git", "token " + "0" * 40)
    assert wrong.status_code == 401 and wrong.headers["WWW-Authenticate"] == 'Basic realm="Gitea"'
