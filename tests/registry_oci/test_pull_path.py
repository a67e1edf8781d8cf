"""The pull path's shortcuts keep their promises: a pull is recorded without the response
waiting for the write, a token verified once is still refused once expired or re-keyed,
and manifest bytes kept in memory are served only where the manifest is and to whom may
pull it."""

import time

import requests
from django.db import transaction

from registry.distribution import pulls, token
from registry.models import AuditLog, Repository, Role
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory
from tests.registry_oci.conftest import OCI_MANIFEST, Registry


def pull_token(registry_url: str, reg: Registry, name: str) -> dict:
    issued = reg.request("GET", f"{registry_url}/service/token?scope=repository:{name}:pull")
    return {"Authorization": f"Bearer {issued.json()['token']}", "Accept": OCI_MANIFEST}


def test_a_pull_is_served_while_its_records_wait_for_a_write_lock(reg, registry_url):
    """The manifest is served while another transaction holds the repository's row (and,
    on SQLite, the database's write lock); its records are written once that ends."""
    digest = reg.push_image("team/app", "v1")
    headers = pull_token(registry_url, reg, "team/app")
    with transaction.atomic():
        Repository.objects.select_for_update().get(name="team/app")
        pulled = requests.get(
            f"{registry_url}/v2/team/app/manifests/v1", headers=headers, timeout=10
        )
        assert pulled.status_code == 200
        assert pulled.headers["Docker-Content-Digest"] == digest
    pulls.flush()
    repository = Repository.objects.get(name="team/app")
    assert repository.pull_count == 1
    assert repository.artifacts.get().pull_time is not None
    logged = AuditLog.objects.get(operation="pull")
    assert (logged.username, logged.resource) == ("owner", "team/app:v1")


def test_pulls_of_several_clients_in_one_batch_all_count(reg, registry_url, settings):
    settings.REGISTRY_PULL_RECORD_MS = 60_000  # only flush() writes them
    digest = reg.push_image("team/app", "v1")
    headers = pull_token(registry_url, reg, "team/app")
    for reference in ("v1", "v1", digest):
        answer = requests.get(f"{registry_url}/v2/team/app/manifests/{reference}", headers=headers)
        assert answer.status_code == 200
    pulls.flush()
    repository = Repository.objects.get(name="team/app")
    assert repository.pull_count == 3
    resources = sorted(AuditLog.objects.filter(operation="pull").values_list("resource", flat=True))
    assert resources == ["team/app:v1", "team/app:v1", f"team/app@{digest}"]


def test_a_verified_token_is_refused_once_expired(project, monkeypatch):
    granted = [token.Scope("repository", "team/app", frozenset({"pull"}))]
    issued = token.issue("owner", granted)
    assert token.verify(issued["token"])["sub"] == "owner"
    later = time.time() + issued["expires_in"] + 1
    monkeypatch.setattr(token.time, "time", lambda: later)
    assert token.verify(issued["token"]) is None


def test_a_verified_token_is_refused_under_another_key_or_service(project, settings):
    granted = [token.Scope("repository", "team/app", frozenset({"pull"}))]
    issued = token.issue("owner", granted)["token"]
    assert token.verify(issued) is not None
    settings.SECRET_KEY = "another-secret-key-" * 3
    assert token.verify(issued) is None
    settings.REGISTRY_TOKEN_SERVICE = "another-registry"
    assert token.verify(issued) is None


def test_manifest_bytes_in_memory_are_served_only_where_the_manifest_is(reg, registry_url, project):
    digest = reg.push_image("team/app", "v1")
    by_digest = f"/v2/team/app/manifests/{digest}"
    first = reg.request("GET", by_digest, headers={"Accept": OCI_MANIFEST})
    assert first.status_code == 200
    again = reg.request("GET", by_digest, headers={"Accept": OCI_MANIFEST})
    head = reg.request("HEAD", "/v2/team/app/manifests/v1")
    for answer in (again, head):
        assert answer.headers["Docker-Content-Digest"] == digest
        assert answer.headers["Content-Type"] == OCI_MANIFEST
        assert answer.headers["Content-Length"] == str(len(first.content))
    assert again.content == first.content

    # Private project: nothing for anonymous, by digest or tag.
    anonymous = Registry(registry_url)
    for reference in (digest, "v1"):
        refused = anonymous.request("GET", f"/v2/team/app/manifests/{reference}")
        assert refused.status_code == 401
        assert digest.encode() not in refused.content
    # A member of another project asks its own repository for the same digest: unknown there.
    outsider = UserFactory(username="outsider")
    ProjectFactory(owner=outsider, name="elsewhere")
    elsewhere = Registry(registry_url, "outsider")
    elsewhere.push_image("elsewhere/app", "v1", layers=(b"other layer",))
    missing = elsewhere.request("GET", f"/v2/elsewhere/app/manifests/{digest}")
    assert missing.status_code == 404
    assert missing.json()["errors"][0]["code"] == "MANIFEST_UNKNOWN"
    assert elsewhere.request("GET", by_digest).status_code in (401, 403)
    # A token for the other project does not reach this one either.
    headers = pull_token(registry_url, elsewhere, "team/app")
    refused = requests.get(f"{registry_url}{by_digest}", headers=headers)
    assert refused.status_code in (401, 403)
    # Made a guest: now it may.
    MemberFactory(project=project, user=outsider, role=Role.GUEST)
    assert elsewhere.request("GET", by_digest).content == first.content
