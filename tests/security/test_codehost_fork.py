"""Forking copies the code: it needs read access to the code unit (Gitea's
reqRepoReader(unit.TypeCode)), not merely seeing the repository."""

import pytest

from codehost import git as codehost_git
from codehost.models import Owner, Repository
from tests.security.codehost_support import api, private_org_repo

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def codehost_git_root(settings, tmp_path):
    settings.CODEHOST_GIT_ROOT = tmp_path / "git"


def test_a_team_with_only_the_issues_unit_cannot_fork_a_private_repository():
    setup = private_org_repo()
    tracker = api(setup.callers["team_issues_only"].api_auth)
    # The team sees the repository (its issues)...
    assert tracker.get("/api/v1/repos/acme/secret").status_code == 200
    response = tracker.post("/api/v1/repos/acme/secret/forks", {}, format="json")
    assert response.status_code == 403, response.content
    assert response.json()["message"] == (
        "user should have specific read permission or be a repo admin or a site admin"
    )
    # ...and nothing was copied.
    assert not Repository.objects.filter(owner__name="tracker").exists()
    assert not codehost_git.repo_path("tracker", "secret").exists()
    assert Repository.objects.get(pk=setup.repo.pk).num_forks == 0
    assert Owner.objects.get(name="tracker").num_repos == 0
    # A team with code read forks it.
    reader = api(setup.callers["team_read"].api_auth)
    assert reader.post("/api/v1/repos/acme/secret/forks", {}, format="json").status_code == 202
    assert (codehost_git.repo_path("reader", "secret") / "HEAD").exists()
