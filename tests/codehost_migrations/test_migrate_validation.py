"""POST /repos/migrate: every check made before any work (no worker involved).

Each refusal leaves nothing behind: no repository row, no task, no directory.
"""

from pathlib import Path

import pytest
from django.conf import settings

from codehost.models import MigrationTask, Mirror, Repository, Team, TeamMember
from codehost.services.migrations import MigrationRequest, start_migration
from codehost.tasks import migrate_repository
from tests.codehost.factories import OrgFactory, RepositoryFactory, UserFactory, owner_of
from tests.codehost_migrations.conftest import files_under

pytestmark = pytest.mark.django_db

URL = "/api/v1/repos/migrate"


def migrate(client, **body):
    return client.post(URL, {"repo_name": "demo", **body}, format="json")


def assert_refused(response, status, message):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["message"] == message
    assert body["url"].endswith("/api/swagger")
    assert Repository.objects.count() == 0
    assert MigrationTask.objects.count() == 0
    assert files_under(Path(settings.CODEHOST_GIT_ROOT)) == []


def test_anonymous_callers_get_401(client, source_repo):
    response = client.post(URL, {"clone_addr": str(source_repo.path), "repo_name": "demo"})
    assert response.status_code == 401
    assert response.json()["message"] == "token is required"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"repo_name": ""}, "[RepoName]: Required"),
        ({"repo_name": "bad name"}, "[RepoName]: AlphaDashDot"),
        ({"repo_name": "x" * 101}, "[RepoName]: MaxSize"),
        ({"clone_addr": None}, "[CloneAddr]: Required"),
        ({"service": "svn"}, "[Service]: In"),
        ({"description": "d" * 2049}, "[Description]: MaxSize"),
    ],
)
def test_binding_errors_are_422_with_the_go_field_name(alice_client, body, message):
    response = alice_client.post(
        URL, {"clone_addr": "https://example.com/a.git", "repo_name": "demo", **body}, format="json"
    )
    assert_refused(response, 422, message)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (".", "The username '.' is reserved."),
        ("-", "The username '-' is reserved."),
        ("demo.git", "The pattern '*.git' is not allowed in a username."),
        ("demo.wiki", "The pattern '*.wiki' is not allowed in a username."),
        ("a..b", "The username 'a..b' contains invalid characters."),
    ],
)
def test_reserved_names_and_patterns_are_422(
    admin_client, local_imports, source_repo, name, message
):
    response = migrate(admin_client, clone_addr=str(source_repo.path), repo_name=name)
    assert_refused(response, 422, message)


def test_unknown_owner_name_or_id_is_422(alice_client):
    response = migrate(alice_client, clone_addr="https://example.com/a.git", repo_owner="nobody")
    assert_refused(response, 422, "user does not exist [uid: 0, name: nobody]")
    response = migrate(alice_client, clone_addr="https://example.com/a.git", uid=999999)
    assert_refused(response, 422, "user does not exist [uid: 999999, name: ]")


def test_a_user_may_not_migrate_into_another_user(alice_client):
    UserFactory(username="bob")
    response = migrate(alice_client, clone_addr="https://example.com/a.git", repo_owner="bob")
    assert_refused(response, 403, "Given user is not an organization.")


def test_a_user_may_not_migrate_into_an_organization_they_do_not_own(alice, alice_client):
    org = OrgFactory(name="acme")
    team = Team.objects.create(org=org, name="devs", units={"repo.code": 2})
    TeamMember.objects.create(team=team, user=owner_of(alice))
    response = migrate(alice_client, clone_addr="https://example.com/a.git", repo_owner="acme")
    assert_refused(response, 403, "Given user is not owner of organization.")


@pytest.mark.parametrize(
    ("address", "message"),
    [
        (
            "http://[::1",
            "migration/cloning from 'http://[::1' is not allowed: the provided url is invalid",
        ),
        (
            "ssh://git@example.com/a.git",
            "migration/cloning from 'example.com' is not allowed: "
            "the provided url protocol is not allowed",
        ),
        (
            "git@github.com:owner/repo.git",
            "migration/cloning from 'git@github.com:owner/repo.git' is not allowed: "
            "the provided url is invalid",
        ),
        (
            "ext::sh -c touch% /tmp/pwned",
            "migration/cloning from '' is not allowed: the provided url protocol is not allowed",
        ),
    ],
)
def test_malformed_addresses_and_other_protocols_are_422(alice_client, address, message):
    assert_refused(migrate(alice_client, clone_addr=address), 422, message)


def test_url_errors_never_echo_credentials(alice_client):
    response = migrate(alice_client, clone_addr="http://bob:hunter2@[::1")
    assert response.status_code == 422
    assert "hunter2" not in response.content.decode()
    assert "sanitized-credential@" in response.json()["message"]


@pytest.mark.parametrize(
    ("address", "named"),
    [
        # Go's url.URL.Host, as Gitea names the address: the user:password is not part of it.
        ("ssh://bob:hunter2@example.com/a.git", "example.com"),
        ("git+ssh://bob:hunter2@example.com:2222/a.git", "example.com:2222"),
        ("ext::bob:hunter2@example.com", ""),
        ("bob:hunter2@example.com:a.git", ""),
        ("http:/\\bob:hunter2@example.com/a.git", ""),
        ("b ob:hunter2@example.com:a.git", "sanitized-credential@example.com:a.git"),
    ],
)
def test_refused_protocols_never_echo_credentials(alice_client, address, named):
    response = migrate(alice_client, clone_addr=address)
    assert response.status_code == 422
    assert "hunter2" not in response.content.decode()
    assert response.json()["message"].startswith(f"migration/cloning from '{named}' is not")


def test_local_paths_need_an_admin(alice_client, local_imports, source_repo):
    response = migrate(alice_client, clone_addr=str(source_repo.path))
    assert_refused(response, 422, "You are not allowed to import local repositories.")


def test_local_paths_need_the_setting_even_for_admins(admin_client, settings, source_repo):
    settings.CODEHOST_IMPORT_LOCAL_PATHS = False
    response = migrate(admin_client, clone_addr=f"file://{source_repo.path}")
    assert_refused(response, 422, "You are not allowed to import local repositories.")


@pytest.mark.parametrize("kind", ["missing", "file", "relative"])
def test_local_paths_must_be_existing_absolute_directories(
    admin_client, local_imports, tmp_path, kind
):
    address = {
        "missing": str(tmp_path / "nope"),
        "file": str(tmp_path / "a-file"),
        "relative": "some/relative/dir",
    }[kind]
    (tmp_path / "a-file").write_text("x")
    response = migrate(admin_client, clone_addr=address)
    assert_refused(response, 422, "Invalid local path, it does not exist or not a directory.")


@pytest.mark.parametrize(
    "address",
    [
        "https://localhost:3000/a/b.git",
        "https://10.0.0.1/a/b.git",
        "http://127.0.0.1/a.git",
        "http://192.168.1.5/a.git",
        "git://[::1]/a.git",
        "http://0.0.0.0/a.git",
        "https://host.that.does.not.resolve.invalid/a.git",
        # IPv6 spellings of local IPv4 addresses: mapped, NAT64 (cloud metadata), 6to4.
        "http://[::ffff:127.0.0.1]/a.git",
        "http://[64:ff9b::a9fe:a9fe]/a.git",
        "http://[2002:7f00:1::]/a.git",
    ],
)
def test_loopback_private_and_unresolvable_hosts_are_refused(admin_client, address):
    # Refused for admins too: only CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS opens them.
    response = migrate(admin_client, clone_addr=address)
    assert_refused(response, 422, "You can not import from disallowed hosts.")


def test_the_block_list_wins_over_allowing_local_networks(admin_client, settings):
    settings.CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = True
    settings.CODEHOST_MIGRATIONS_BLOCKED_DOMAINS = ["localhost", "10.0.0.0/8"]
    for address in ("http://localhost/a.git", "http://10.1.2.3/a.git"):
        response = migrate(admin_client, clone_addr=address)
        assert_refused(response, 422, "You can not import from disallowed hosts.")


def test_an_allow_list_replaces_the_external_default(admin_client, settings):
    settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = ["git.example.org"]
    # A public address outside the list is refused once a list is set.
    response = migrate(admin_client, clone_addr="https://93.184.216.34/a.git")
    assert_refused(response, 422, "You can not import from disallowed hosts.")


@pytest.mark.parametrize(
    ("interval", "message"),
    [
        ("1m", "invalid mirror interval: 1m0s is below minimum interval: 10m0s"),
        ("soon", 'invalid mirror interval: time: invalid duration "soon"'),
    ],
)
def test_mirror_intervals_below_the_minimum_or_unparsable_are_422(
    admin_client, local_imports, source_repo, interval, message
):
    response = migrate(
        admin_client, clone_addr=str(source_repo.path), mirror=True, mirror_interval=interval
    )
    assert_refused(response, 422, message)


def test_a_mirror_interval_with_non_ascii_digits_is_422(admin_client, local_imports, source_repo):
    # Go's time.ParseDuration reads ASCII digits only: "\u0663h" (Arabic-Indic three) is
    # no duration, not three hours.
    response = migrate(
        admin_client, clone_addr=str(source_repo.path), mirror=True, mirror_interval="\u0663h"
    )
    assert response.status_code == 422, response.content
    assert response.json()["message"].startswith("invalid mirror interval: time: invalid duration")
    assert not Repository.objects.exists()


def test_an_existing_name_is_409(alice, alice_client, local_imports, source_repo, settings):
    settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = ["*"]
    RepositoryFactory(owner=owner_of(alice), name="Demo")
    response = migrate(alice_client, clone_addr="https://example.com/a.git", repo_name="demo")
    assert response.status_code == 409
    assert response.json()["message"] == "The repository with the same name already exists."
    assert MigrationTask.objects.count() == 0


def test_the_owner_creation_limit_is_422(alice, alice_client, settings):
    settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = ["*"]
    owner = owner_of(alice)
    owner.max_repo_creation = 0
    owner.save()
    response = migrate(alice_client, clone_addr="https://example.com/a.git")
    assert_refused(response, 422, "You have already reached your limit of 0 repositories.")


def test_disabled_migrations_are_403_after_the_address_checks(admin_client, settings):
    settings.CODEHOST_DISABLE_MIGRATIONS = True
    settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = ["*"]
    response = migrate(admin_client, clone_addr="https://example.com/a.git")
    assert_refused(response, 403, "the site administrator has disabled migrations")
    # A bad address is still reported as such first, as Gitea's handler orders its checks.
    response = migrate(admin_client, clone_addr="ftp://example.com/a.git")
    assert_refused(
        response,
        422,
        "migration/cloning from 'example.com' is not allowed: "
        "the provided url protocol is not allowed",
    )


@pytest.mark.parametrize(
    "switch",
    [("CODEHOST_DISABLE_NEW_PULL_MIRRORS", True), ("CODEHOST_MIRRORS_ENABLED", False)],
)
def test_disabled_new_pull_mirrors_refuse_only_mirrors(alice, alice_client, settings, switch):
    name, value = switch
    setattr(settings, name, value)
    settings.CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = ["*"]
    response = migrate(alice_client, clone_addr="https://example.com/a.git", mirror=True)
    assert_refused(
        response, 403, "the site administrator has disabled the creation of new pull mirrors"
    )
    # A plain migration passes that check: it gets as far as the name conflict.
    RepositoryFactory(owner=owner_of(alice), name="demo")
    response = migrate(alice_client, clone_addr="https://example.com/a.git")
    assert response.status_code == 409


@pytest.mark.parametrize(
    ("options", "interval"),
    [
        ({"mirror": True}, 8 * 3600),
        ({"mirror": True, "mirror_interval": "0"}, 0),
        ({"mirror": True, "mirror_interval": "1h30m"}, 5400),
        # Ignored (no schedule at all) for a migration that is not a mirror.
        ({"mirror": False, "mirror_interval": "1m"}, None),
    ],
)
def test_a_mirror_gets_its_schedule_with_the_repository(
    admin_user, local_imports, source_repo, django_capture_on_commit_callbacks, options, interval
):
    request = MigrationRequest(clone_addr=str(source_repo.path), repo_name="demo", **options)
    with django_capture_on_commit_callbacks() as queued:
        task = start_migration(admin_user, request, migrate_repository.delay)
    assert len(queued) == 1
    assert task.repo.status == Repository.Status.BEING_MIGRATED
    mirror = Mirror.objects.filter(repo=task.repo).first()
    if interval is None:
        assert mirror is None
        return
    assert (mirror.interval_seconds, mirror.enable_prune) == (interval, True)
    # The schedule starts when the clone is done.
    assert (mirror.updated, mirror.next_update) == (None, None)
