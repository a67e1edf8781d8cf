"""50 concurrent creates of one name through gunicorn as `make run` serves it (several
processes, threads in each), on each backend: one creation, 49 conflicts in the modelled
system's format, no error and nothing half-made. On SQLite this is the busy timeout and
the IMMEDIATE transactions at work."""

import base64
import functools

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User

from codehost.models import OwnerRepositoryCount, Repository
from codehost.services.accounts import create_token
from registry.models import Project, ProjectMember
from storefront.models import Webhook
from tests.conftest import database_url
from tests.races import run_together
from tests.services.web import gunicorn
from tests.storefront.factories import InstallationFactory, issue_token

CLIENTS = 50

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    # Enough room in the store API's bucket for every client.
    with gunicorn(database_url(), log, STOREFRONT_RATE_LIMIT_SIZE=CLIENTS * 2) as (base, _):
        yield base
    assert b"database is locked" not in log.read_bytes()


def race(url: str, headers: dict, body) -> list[requests.Response]:
    """CLIENTS posts at once; `body` a dict, or a function of the client's number."""
    sessions = [requests.Session() for _ in range(CLIENTS)]

    def send(number: int):
        sent = body(number) if callable(body) else body
        with sessions[number] as session:
            return session.post(url, json=sent, headers=headers, timeout=120)

    return run_together([functools.partial(send, n) for n in range(CLIENTS)], timeout=150)


def statuses(answers) -> dict[int, int]:
    counted: dict[int, int] = {}
    for answer in answers:
        counted[answer.status_code] = counted.get(answer.status_code, 0) + 1
    return counted


def test_registry_project(server):
    # The server hashes with its own default (PBKDF2), not the tests' fast hasher.
    user = User.objects.create(
        username="racer", password=PBKDF2PasswordHasher().encode("Passw0rd1", "saltsalt")
    )
    auth = "Basic " + base64.b64encode(b"racer:Passw0rd1").decode()
    # One request first: the verified credentials are then cached for every process.
    assert requests.get(f"{server}/api/v2.0/users/current", headers={"Authorization": auth}).ok
    answers = race(f"{server}/api/v2.0/projects", {"Authorization": auth}, {"project_name": "one"})
    assert statuses(answers) == {201: 1, 409: CLIENTS - 1}
    conflict = next(answer for answer in answers if answer.status_code == 409).json()
    assert conflict["errors"][0]["code"] == "CONFLICT"
    project = Project.objects.get(name="one")
    assert list(ProjectMember.objects.values_list("project", "user")) == [(project.pk, user.pk)]


def test_codehost_repository(server):
    user = User.objects.create(username="racer")
    _, raw = create_token(user, "race", ["all"])
    answers = race(
        f"{server}/api/v1/user/repos", {"Authorization": f"token {raw}"}, {"name": "one"}
    )
    assert statuses(answers) == {201: 1, 409: CLIENTS - 1}
    assert Repository.objects.filter(name="one").count() == 1


def test_codehost_repositories_counted_under_concurrent_creates(server):
    """The per owner counts behind the search's X-Total-Count (kept by triggers) stay
    exact when one owner's repositories are created at once, public and private."""
    user = User.objects.create(username="racer")
    _, raw = create_token(user, "race", ["all"])
    headers = {"Authorization": f"token {raw}"}
    answers = race(
        f"{server}/api/v1/user/repos",
        headers,
        lambda number: {"name": f"r{number}", "private": number % 2 == 1},
    )
    assert statuses(answers) == {201: CLIENTS}
    kept = dict(
        OwnerRepositoryCount.objects.filter(owner__user=user).values_list(
            "private", "repository_count"
        )
    )
    assert kept == {False: CLIENTS // 2, True: CLIENTS // 2}
    listed = requests.get(f"{server}/api/v1/repos/search?limit=1", headers=headers, timeout=30)
    assert listed.headers["X-Total-Count"] == str(CLIENTS)


def test_storefront_webhook(server):
    installation = InstallationFactory()
    headers = {"Authentication": f"bearer {issue_token(installation)}"}
    body = {"url": "https://app.example.com/hook", "event": "product/created"}
    answers = race(f"{server}/v1/{installation.store_id}/webhooks", headers, body)
    assert statuses(answers) == {201: 1, 409: CLIENTS - 1}
    assert Webhook.objects.count() == 1
