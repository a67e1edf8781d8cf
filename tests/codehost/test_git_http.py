"""Git smart HTTP with the real git CLI against a live server."""

import subprocess

import pytest

from codehost.models import Activity, OpType, Repository
from tests.codehost.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def git_client(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }

    def run(*args, cwd=None, check=True):
        result = subprocess.run(
            ["git", "-c", "user.name=Tester", "-c", "user.email=t@example.com", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if check and result.returncode:
            raise AssertionError(result.stderr)
        return result

    return run


def url(live_server, path, user=None, secret=PASSWORD):
    host = live_server.url.removeprefix("http://")
    credentials = f"{user}:{secret}@" if user else ""
    return f"http://{credentials}{host}/{path}"


def commit_file(git_client, checkout, name, text):
    (checkout / name).write_text(text)
    git_client("add", name, cwd=checkout)
    git_client("commit", "-q", "-m", f"add {name}", cwd=checkout)


def test_anonymous_clone_of_public_repo_and_push_needs_credentials(
    live_server, as_user, git_client, tmp_path
):
    alice = UserFactory(username="alice")
    as_user(alice).post("/user/repos", {"name": "demo", "auto_init": True})
    checkout = tmp_path / "anon"
    git_client("clone", "-q", url(live_server, "alice/demo.git"), str(checkout))
    assert (checkout / "README.md").read_text().startswith("# demo")
    commit_file(git_client, checkout, "a.txt", "a\n")
    refused = git_client("push", "-q", "origin", "main", cwd=checkout, check=False)
    assert refused.returncode != 0
    assert "could not read Username" in refused.stderr  # git was asked for credentials


def test_push_by_writer_records_activity_and_updates_repo(
    live_server, as_user, git_client, tmp_path
):
    alice = UserFactory(username="alice")
    as_user(alice).post("/user/repos", {"name": "demo"})
    before = Repository.objects.get(name="demo")
    assert before.is_empty
    work = tmp_path / "work"
    work.mkdir()
    git_client("init", "-q", "-b", "main", cwd=work)
    commit_file(git_client, work, "a.txt", "hello\n")
    git_client("push", "-q", url(live_server, "alice/demo.git", "alice"), "main", cwd=work)
    git_client("tag", "v1", cwd=work)
    git_client("push", "-q", url(live_server, "alice/demo.git", "alice"), "v1", cwd=work)

    after = Repository.objects.get(pk=before.pk)
    assert not after.is_empty
    assert after.size > before.size
    assert after.updated_at > before.updated_at
    ops = list(
        Activity.objects.filter(repo=after, user=after.owner)
        .order_by("pk")
        .values_list("op_type", "ref_name")
    )
    assert (OpType.COMMIT_REPO, "refs/heads/main") in ops
    assert (OpType.PUSH_TAG, "refs/tags/v1") in ops
    body = as_user(alice).get("/repos/alice/demo").json()
    assert body["empty"] is False


def test_reader_cannot_push_and_private_repo_needs_access(
    live_server, as_user, git_client, tmp_path
):
    alice = UserFactory(username="alice")
    UserFactory(username="bob")
    as_user(alice).post("/user/repos", {"name": "secret", "private": True, "auto_init": True})
    as_user(alice).post("/user/repos", {"name": "open", "auto_init": True})

    anonymous = git_client(
        "clone", "-q", url(live_server, "alice/secret.git"), str(tmp_path / "a"), check=False
    )
    assert anonymous.returncode != 0 and "could not read Username" in anonymous.stderr
    stranger = git_client(
        "clone", "-q", url(live_server, "alice/secret.git", "bob"), str(tmp_path / "b"),
        check=False,
    )  # fmt: skip
    assert stranger.returncode != 0 and "not found" in stranger.stderr.lower()
    git_client("clone", "-q", url(live_server, "alice/secret.git", "alice"), str(tmp_path / "c"))

    reader = tmp_path / "reader"
    git_client("clone", "-q", url(live_server, "alice/open.git", "bob"), str(reader))
    commit_file(git_client, reader, "b.txt", "b\n")
    refused = git_client("push", "-q", "origin", "main", cwd=reader, check=False)
    assert refused.returncode != 0 and "403" in refused.stderr


def test_wrong_password_is_challenged_and_token_works_as_password(
    live_server, as_user, git_client, tmp_path, client
):
    alice = UserFactory(username="alice")
    as_user(alice).post("/user/repos", {"name": "demo", "private": True, "auto_init": True})
    wrong = git_client(
        "clone", "-q", url(live_server, "alice/demo.git", "alice", "nope"), str(tmp_path / "x"),
        check=False,
    )  # fmt: skip
    assert wrong.returncode != 0
    token = (
        as_user(alice)
        .post("/users/alice/tokens", {"name": "ci", "scopes": ["read:repository"]})
        .json()["sha1"]
    )
    git_client(
        "clone", "-q", url(live_server, "alice/demo.git", "alice", token), str(tmp_path / "y")
    )
    work = tmp_path / "y"
    commit_file(git_client, work, "c.txt", "c\n")
    refused = git_client("push", "-q", "origin", "main", cwd=work, check=False)
    assert refused.returncode != 0 and "403" in refused.stderr


def test_a_deactivated_account_is_refused_with_403_not_challenged(
    live_server, as_user, git_client, tmp_path
):
    """Gitea's git handler: "Your account is disabled." (403): git stops and does not ask
    for other credentials. (git sends credentials once challenged: a private repository.)"""
    alice = UserFactory(username="alice")
    as_user(alice).post("/user/repos", {"name": "demo", "private": True, "auto_init": True})
    token = as_user(alice).post("/users/alice/tokens", {"name": "ci", "scopes": ["all"]})
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    for secret in (PASSWORD, token.json()["sha1"]):
        refused = git_client(
            "clone", "-q", url(live_server, "alice/demo.git", "alice", secret),
            str(tmp_path / secret[:8]), check=False,
        )  # fmt: skip
        assert refused.returncode != 0
        assert "403" in refused.stderr, refused.stderr
        assert "could not read" not in refused.stderr


def test_git_works_at_the_repository_page_address_without_git_suffix(
    live_server, as_user, git_client, tmp_path
):
    # Gitea answers git at http://host/owner/repo too, the address users copy (html_url).
    alice = UserFactory(username="alice")
    made = as_user(alice).post("/user/repos", {"name": "demo", "auto_init": True, "private": True})
    assert made.status_code == 201
    checkout = tmp_path / "checkout"
    git_client("clone", "-q", url(live_server, "alice/demo", "alice"), str(checkout))
    assert (checkout / "README.md").read_text().startswith("# demo")
    commit_file(git_client, checkout, "a.txt", "a\n")
    git_client("push", "-q", "origin", "main", cwd=checkout)
    assert Activity.objects.filter(op_type=OpType.COMMIT_REPO).exists()
    # The same rules: a private repository is not served to an anonymous caller.
    anonymous = git_client("ls-remote", url(live_server, "alice/demo"), check=False)
    assert anonymous.returncode != 0


@pytest.mark.parametrize("owner", ["admin", "apps", "media"])
def test_owners_named_like_another_route_keep_their_git_urls(
    live_server, as_user, git_client, tmp_path, owner
):
    user = UserFactory(username=owner)
    assert as_user(user).post("/user/repos", {"name": "demo", "auto_init": True}).status_code == 201
    checkout = tmp_path / "checkout"
    git_client("clone", "-q", url(live_server, f"{owner}/demo.git", owner), str(checkout))
    assert (checkout / "README.md").read_text().startswith("# demo")
    commit_file(git_client, checkout, "a.txt", "a\n")
    git_client("push", "-q", "origin", "main", cwd=checkout)
