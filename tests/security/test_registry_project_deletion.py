# ruff: noqa: F811  (pytest fixtures imported from registry_support)
"""A deleted project leaves nothing behind its name: blobs pushed under a repository that
never got a manifest and uploads in progress (records and staged files) go with it, so the
next owner of the name reaches none of them."""

import pytest

from registry.distribution.models import RepositoryBlob, Upload
from tests.registry.factories import UserFactory
from tests.security.registry_support import (  # noqa: F401
    Registry,
    owner,
    project,
    reg,
    registry_url,
    sha256,
)


@pytest.mark.both_storages
def test_deleting_a_project_deletes_its_uploads_and_blob_links(reg, registry_url, blob_storage):
    secret = b"a layer no manifest ever referenced"
    digest = reg.upload("team/app", secret)
    started = reg.request("POST", "/v2/team/app/blobs/uploads/")
    location = started.headers["Location"]
    assert reg.request("PATCH", location, data=b"half of a layer").status_code == 202
    upload_id = started.headers["Docker-Upload-UUID"]
    assert blob_storage.staged_bytes(upload_id) == len(b"half of a layer")

    deleted = reg.request("DELETE", "/api/v2.0/projects/team")
    assert deleted.status_code == 200, deleted.text
    assert not Upload.objects.exists()
    assert blob_storage.staged_bytes(upload_id) is None
    assert not RepositoryBlob.objects.filter(repository_name__startswith="team/").exists()

    UserFactory(username="mallory")
    mallory = Registry(registry_url, "mallory")
    created = mallory.request("POST", "/api/v2.0/projects", json={"project_name": "team"})
    assert created.status_code == 201, created.text
    assert mallory.request("GET", f"/v2/team/app/blobs/{digest}").status_code == 404
    assert mallory.request("HEAD", f"/v2/team/app/blobs/{sha256(secret)}").status_code == 404
    assert mallory.request("GET", location).status_code == 404
    mounted = mallory.request(
        "POST", "/v2/team/other/blobs/uploads/", params={"mount": digest, "from": "team/app"}
    )
    assert mounted.status_code == 202
