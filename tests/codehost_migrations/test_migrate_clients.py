"""Gitea's own Python clients, unchanged, migrating and syncing against a live server and
the real worker."""

import giteapy
import pytest
from gitea import Gitea
from gitea import Repository as PyGiteaRepository

from codehost import git as codehost_git
from codehost.models import Owner
from tests.codehost_migrations.conftest import git
from tests.conftest import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def heads(path) -> dict[str, str]:
    output = git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", cwd=path)
    return dict(line.split(" ", 1) for line in output.splitlines())


def test_py_gitea_migrates_with_its_null_options(
    celery_worker, live_server, admin_user, local_imports, source_repo, clean_git_root
):
    gitea = Gitea(live_server.url, auth=(admin_user.username, "password"))
    # py-gitea sends every option, unset ones as null (auth_token, mirror_interval...).
    repo = PyGiteaRepository.migrate_repo(
        gitea, service="git", clone_addr=str(source_repo.path), repo_name="via-py-gitea"
    )
    assert (repo.name, repo.mirror, repo.empty) == ("via-py-gitea", False, False)
    path = codehost_git.repo_path(admin_user.username, "via-py-gitea")
    assert heads(path) == source_repo.refs()


def test_giteapy_migrates_a_mirror_and_syncs_it(
    celery_worker, live_server, admin_user, local_imports, source_repo, clean_git_root
):
    config = giteapy.Configuration()
    config.host = live_server.url + "/api/v1"
    config.username, config.password = admin_user.username, "password"
    repos = giteapy.RepositoryApi(giteapy.ApiClient(config))
    owner = Owner.objects.get(user=admin_user)
    form = giteapy.MigrateRepoForm(
        clone_addr=str(source_repo.path), repo_name="via-giteapy", uid=owner.pk, mirror=True
    )
    created = repos.repo_migrate(body=form)
    assert (created.full_name, created.mirror) == (f"{owner.name}/via-giteapy", True)

    head = source_repo.commit("later.txt", "later")
    repos.repo_mirror_sync(owner.name, "via-giteapy")
    path = codehost_git.repo_path(owner.name, "via-giteapy")
    wait_until(lambda: heads(path).get("refs/heads/main") == head, 30, message="the sync")
    assert repos.repo_get(owner.name, "via-giteapy").mirror is True
