import hashlib
import json

import pytest
import requests

from registry import configuration
from registry.distribution import pulls
from tests.registry.factories import PASSWORD, ProjectFactory, UserFactory

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json"
DOCKER_LAYER = "application/vnd.docker.image.rootfs.diff.tar.gzip"


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def descriptor(media_type: str, data: bytes, **extra) -> dict:
    return {"mediaType": media_type, "digest": sha256(data), "size": len(data), **extra}


EMPTY_JSON = b"{}"
EMPTY_MEDIA_TYPE = "application/vnd.oci.empty.v1+json"


def referrer_document(
    reg, repository: str, artifact_type: str, subject_manifest: bytes, **extra
) -> dict:
    """An OCI manifest of `artifact_type` whose subject is `subject_manifest` (a signature,
    an SBOM), its empty config and layer uploaded to `repository`; not pushed itself."""
    reg.upload(repository, EMPTY_JSON)
    return {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "artifactType": artifact_type,
        "config": descriptor(EMPTY_MEDIA_TYPE, EMPTY_JSON),
        "layers": [descriptor(EMPTY_MEDIA_TYPE, EMPTY_JSON)],
        "subject": descriptor(OCI_MANIFEST, subject_manifest),
        **extra,
    }


# Sessions opened during a test; closed at its end so that the live server's request
# threads (one per kept-alive connection) release their database connections.
OPEN_SESSIONS: list[requests.Session] = []


def tracked_session(session: requests.Session) -> requests.Session:
    OPEN_SESSIONS.append(session)
    return session


class Registry:
    """Raw HTTP against /v2/ with Basic credentials sent on every request (or none)."""

    def __init__(self, url: str, username: str | None = None, password: str = PASSWORD):
        self.url = url
        self.session = tracked_session(requests.Session())
        if username:
            self.session.auth = (username, password)

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        target = path if path.startswith("http") else self.url + path
        return self.session.request(method, target, allow_redirects=False, **kwargs)

    def upload(self, name: str, data: bytes) -> str:
        started = self.request("POST", f"/v2/{name}/blobs/uploads/")
        assert started.status_code == 202, started.text
        digest = sha256(data)
        done = self.request(
            "PUT", started.headers["Location"], params={"digest": digest}, data=data
        )
        assert done.status_code == 201, done.text
        return digest

    def put_manifest(self, name: str, reference: str, document: dict, media_type: str):
        body = json.dumps(document).encode()
        response = self.request(
            "PUT",
            f"/v2/{name}/manifests/{reference}",
            data=body,
            headers={"Content-Type": media_type},
        )
        return response, sha256(body)

    def push_image(
        self,
        name: str,
        tag: str,
        layers: tuple[bytes, ...] = (b"layer-one", b"layer-two"),
        config: dict | None = None,
        docker: bool = False,
        **fields,
    ) -> str:
        """An image (OCI by default, Docker v2 schema 2 with `docker`); its digest."""
        config_bytes = json.dumps(
            config or {"architecture": "amd64", "os": "linux", "config": {"Cmd": ["/bin/sh"]}}
        ).encode()
        self.upload(name, config_bytes)
        for layer in layers:
            self.upload(name, layer)
        media_type = DOCKER_MANIFEST if docker else OCI_MANIFEST
        document = {
            "schemaVersion": 2,
            "mediaType": media_type,
            "config": descriptor(DOCKER_CONFIG if docker else OCI_CONFIG, config_bytes),
            "layers": [descriptor(DOCKER_LAYER if docker else OCI_LAYER, x) for x in layers],
            **fields,
        }
        response, digest = self.put_manifest(name, tag, document, media_type)
        assert response.status_code == 201, response.text
        return digest


@pytest.fixture
def registry_url(live_server, settings):
    """The live server's URL, also the EXTERNAL_URL the token realm is built from."""
    settings.EXTERNAL_URL = live_server.url
    configuration.invalidate()
    yield live_server.url
    # Before the database is emptied for the next test: pulls are written after responses.
    pulls.flush()
    configuration.invalidate()
    while OPEN_SESSIONS:
        OPEN_SESSIONS.pop().close()


@pytest.fixture
def owner(transactional_db):
    return UserFactory(username="owner")


@pytest.fixture
def admin(transactional_db):
    return UserFactory(username="admin", is_superuser=True, is_staff=True)


@pytest.fixture
def project(owner):
    return ProjectFactory(owner=owner, name="team")


@pytest.fixture
def public_project(owner):
    return ProjectFactory(owner=owner, name="pub", public=True)


@pytest.fixture
def reg(registry_url, project, owner) -> Registry:
    """The project owner (projectAdmin of `team`) talking Basic to the registry."""
    return Registry(registry_url, owner.username)


@pytest.fixture
def anonymous(registry_url) -> Registry:
    return Registry(registry_url)
