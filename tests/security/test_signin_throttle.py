"""Failed sign-ins are throttled per account from one client address and per address, in
every service and on the login pages: 429 with Retry-After in the service's own error
format, counted in the cache every process shares; correct passwords from elsewhere still
work. Limits: 10 failures per account and address, 100 per address, in 15 minutes."""

import base64
import shutil
import time
from pathlib import Path

import pytest
import requests
from django.test import Client

from codehost.services import accounts as codehost_accounts
from config import signin_throttle
from tests.registry.factories import PASSWORD, UserFactory
from tests.registry_oci.test_gunicorn import web_server

pytestmark = pytest.mark.django_db

ATTACKER = "203.0.113.7"
ELSEWHERE = "198.51.100.2"


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def get(path: str, username: str, password: str, address: str = ATTACKER, **headers):
    client = Client(REMOTE_ADDR=address)
    return client.get(path, HTTP_AUTHORIZATION=basic(username, password), **headers)


def retry_after(response) -> int:
    value = int(response["Retry-After"])
    assert 0 < value <= 900
    return value


@pytest.fixture
def alice(settings):
    """alice, with no git directories left by earlier tests (rows roll back, files not)."""
    directory = Path(settings.CODEHOST_GIT_ROOT) / "alice"
    shutil.rmtree(directory, ignore_errors=True)
    yield UserFactory(username="alice")
    shutil.rmtree(directory, ignore_errors=True)


def test_eighty_wrong_passwords_are_throttled_after_ten(alice):
    statuses = [get("/api/v2.0/users/current", "alice", f"guess{n}").status_code for n in range(80)]
    assert statuses == [401] * 10 + [429] * 70
    throttled = get("/api/v2.0/users/current", "alice", "guess")
    retry_after(throttled)
    assert throttled.json() == {
        "errors": [
            {
                "code": "TOO_MANY_REQUEST",
                "message": throttled.json()["errors"][0]["message"],
            }
        ]
    }
    # Even the right password from the throttled address waits: no guess is checked.
    assert get("/api/v2.0/users/current", "alice", PASSWORD).status_code == 429
    # From another address the owner signs in at once.
    started = time.monotonic()
    assert get("/api/v2.0/users/current", "alice", PASSWORD, ELSEWHERE).status_code == 200
    assert time.monotonic() - started < 2


def test_the_account_limit_is_per_account_and_address(alice):
    UserFactory(username="bob")
    for n in range(10):
        get("/api/v2.0/users/current", "alice", f"guess{n}")
    assert get("/api/v2.0/users/current", "alice", "x").status_code == 429
    # Another account from the same address, and the same account from elsewhere: open.
    assert get("/api/v2.0/users/current", "bob", PASSWORD).status_code == 200
    assert get("/api/v2.0/users/current", "alice", "x", ELSEWHERE).status_code == 401


def test_the_address_limit_counts_every_account(settings, alice):
    settings.SIGNIN_THROTTLE_ADDRESS_FAILURES = 30
    for n in range(30):
        assert get("/api/v2.0/users/current", f"user{n}", "x").status_code == 401
    # Each account failed once, but the address is spent: alice is refused from it ...
    assert get("/api/v2.0/users/current", "alice", PASSWORD).status_code == 429
    # ... and not from elsewhere.
    assert get("/api/v2.0/users/current", "alice", PASSWORD, ELSEWHERE).status_code == 200


def exhaust(username: str) -> None:
    for n in range(10):
        get("/api/v2.0/users/current", username, f"guess{n}")


def make_repo(name: str, private: bool) -> None:
    created = Client(REMOTE_ADDR=ELSEWHERE).post(
        "/api/v1/user/repos",
        {"name": name, "private": private},
        content_type="application/json",
        HTTP_AUTHORIZATION=basic("alice", PASSWORD),
    )
    assert created.status_code == 201, created.content


def test_every_service_answers_429_in_its_own_format(alice):
    make_repo("code", private=False)
    exhaust("alice")

    gitea = get("/api/v1/user", "alice", PASSWORD)
    assert gitea.status_code == 429 and retry_after(gitea)
    assert set(gitea.json()) == {"message", "url"}

    git = get(
        "/alice/code.git/info/refs?service=git-upload-pack", "alice", PASSWORD, CONTENT_LENGTH="0"
    )
    assert git.status_code == 429 and retry_after(git)
    assert git["Content-Type"].startswith("text/plain")

    for path in ("/v2/", "/service/token?service=harbor-registry"):
        registry = get(path, "alice", PASSWORD)
        assert registry.status_code == 429 and retry_after(registry)
        assert registry.json()["errors"][0]["code"] == "TOOMANYREQUESTS"

    for login in ("/accounts/login/", "/admin/login/"):
        page = Client(REMOTE_ADDR=ATTACKER).post(login, {"username": "alice", "password": PASSWORD})
        assert page.status_code == 429 and retry_after(page)


def test_login_form_failures_count_too(alice):
    client = Client(REMOTE_ADDR=ATTACKER)
    for n in range(10):
        page = client.post("/accounts/login/", {"username": "alice", "password": f"g{n}"})
        assert page.status_code == 200  # the form again, with its error
    assert (
        client.post("/accounts/login/", {"username": "alice", "password": "g"}).status_code == 429
    )
    assert get("/api/v2.0/users/current", "alice", PASSWORD).status_code == 429


def test_a_token_used_as_the_git_password_is_no_failed_sign_in(alice):
    make_repo("code", private=True)
    secret = codehost_accounts.create_token(alice, "ci", ["read:repository"])[1]
    for _ in range(15):
        response = get(
            "/alice/code.git/info/refs?service=git-upload-pack", "alice", secret, CONTENT_LENGTH="0"
        )
        assert response.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_failures_are_shared_across_processes(monkeypatch, tmp_path):
    """Failures counted by a gunicorn worker throttle this process too (and back)."""
    monkeypatch.setattr(signin_throttle, "NAMESPACE", "signin-fail")
    username = f"carol{time.time_ns()}"
    UserFactory(username=username)
    with web_server(tmp_path / "gunicorn.log") as (base, _):
        url = f"{base}/api/v2.0/users/current"
        statuses = [
            requests.get(url, auth=(username, f"guess{n}"), timeout=30).status_code
            for n in range(10)
        ]
        assert statuses == [401] * 10
        # The server process counted them; this process (same address) refuses now.
        assert get("/api/v2.0/users/current", username, PASSWORD, "127.0.0.1").status_code == 429
        answer = requests.get(url, auth=(username, PASSWORD), timeout=30)
        assert answer.status_code == 429 and int(answer.headers["Retry-After"]) > 0


def test_a_forged_forwarded_for_does_not_escape_the_throttle(alice):
    for n in range(10):
        get("/api/v2.0/users/current", "alice", f"guess{n}", HTTP_X_FORWARDED_FOR=f"10.9.0.{n}")
    forged = get("/api/v2.0/users/current", "alice", "x", HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert forged.status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(settings, alice):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "127.0.0.1"
    for n in range(10):
        get("/api/v2.0/users/current", "alice", f"g{n}", proxy, HTTP_X_FORWARDED_FOR=ATTACKER)
    assert (
        get(
            "/api/v2.0/users/current", "alice", PASSWORD, proxy, HTTP_X_FORWARDED_FOR=ATTACKER
        ).status_code
        == 429
    )
    # Another client behind the same proxy (whatever it prepends itself) signs in.
    assert (
        get(
            "/api/v2.0/users/current",
            "alice",
            PASSWORD,
            proxy,
            HTTP_X_FORWARDED_FOR=f"{ATTACKER}, {ELSEWHERE}",
        ).status_code
        == 200
    )


def test_the_old_password_of_a_password_change_is_throttled_like_a_sign_in(alice):
    """A stolen session must not become an unthrottled oracle for the account's password
    (which works on all three services and outlives the session)."""
    client = Client(REMOTE_ADDR=ATTACKER)
    client.force_login(alice)
    path = f"/api/v2.0/users/{alice.pk}/password"

    def change(old: str):
        body = {"old_password": old, "new_password": "Changed-Passw0rd"}
        return client.put(path, body, content_type="application/json")

    statuses = [change(f"guess{n}").status_code for n in range(15)]
    assert statuses == [403] * 10 + [429] * 5
    retry_after(change("guess"))
    # Even the right old password waits out the window: no guess is checked meanwhile.
    assert change(PASSWORD).status_code == 429
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    # The owner, from elsewhere, changes it at once.
    owner = Client(REMOTE_ADDR=ELSEWHERE)
    owner.force_login(alice)
    body = {"old_password": PASSWORD, "new_password": "Changed-Passw0rd"}
    assert owner.put(path, body, content_type="application/json").status_code == 200


@pytest.mark.parametrize(
    ("path", "staff"),
    [("/accounts/password_change/", False), ("/admin/password_change/", True)],
)
def test_the_old_password_of_the_password_change_pages_is_throttled(alice, path, staff):
    """The pages' form checks the old password too: the same oracle, the same throttle."""
    if staff:
        type(alice).objects.filter(pk=alice.pk).update(is_staff=True)
        alice.refresh_from_db()
    client = Client(REMOTE_ADDR=ATTACKER)
    client.force_login(alice)
    page = client.get(path)
    assert page.status_code == 200 and b'name="old_password"' in page.content

    def change(old: str):
        body = {
            "old_password": old,
            "new_password1": "Changed-Passw0rd",
            "new_password2": "Changed-Passw0rd",
        }
        return client.post(path, body)

    statuses = [change(f"guess{n}").status_code for n in range(12)]
    assert statuses == [200] * 10 + [429] * 2
    retry_after(change("guess"))
    assert change(PASSWORD).status_code == 429
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    owner = Client(REMOTE_ADDR=ELSEWHERE)
    owner.force_login(alice)
    body = {
        "old_password": PASSWORD,
        "new_password1": "Changed-Passw0rd",
        "new_password2": "Changed-Passw0rd",
    }
    assert owner.post(path, body).status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("Changed-Passw0rd")


def test_failures_at_once_all_count():
    """Eight clients failing 25 times each at once count 200 failures, on the file cache
    of the embedded default (its add and incr are atomic across threads and processes) as
    on Redis: lost counts would let parallel guesses past the limit."""
    from concurrent.futures import ThreadPoolExecutor

    from django.test import RequestFactory

    request = RequestFactory().get("/", REMOTE_ADDR=ATTACKER)
    username = f"dave{time.time_ns()}"

    def fail(_):
        for _ in range(25):
            signin_throttle.record_failure(request, username)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(fail, range(8)))

    [(account, _), (address, _)] = signin_throttle._counters(request, username)
    cache = signin_throttle._cache()
    assert cache.get(f"{account}:n") == 200
    assert cache.get(f"{address}:n") == 200
