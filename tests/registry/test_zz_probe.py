import json

import pytest
from rest_framework.test import APIClient

from registry.models import Role
from tests.registry.conftest import client_for
from tests.registry.factories import MemberFactory, ProjectFactory, UserFactory
from tests.registry.test_review_attacks import (
    OCI_MANIFEST,
    descriptor,
    put_manifest,
    upload,
)
from tests.registry.test_robots import project_robot, robot_client

pytestmark = pytest.mark.django_db
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"


def push_image(c, name, tag, config=b'{"os":"linux"}', **extra):
    upload(c, name, config)
    doc = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": descriptor(OCI_CONFIG, config),
        "layers": [],
        **extra,
    }
    r = put_manifest(c, name, tag, doc)
    assert r.status_code == 201, r.content
    return r["Docker-Content-Digest"]


def test_probe(db):
    owner = UserFactory()
    admin = UserFactory(is_superuser=True)
    ProjectFactory(name="app", owner=owner)
    ProjectFactory(name="other", owner=owner)
    c = client_for(owner)
    d = push_image(c, "app/web", "v1")
    users = {}
    for role in Role:
        u = UserFactory()
        MemberFactory(
            project=__import__("registry.models", fromlist=["Project"]).Project.objects.get(
                name="app"
            ),
            user=u,
            role=role,
        )
        users[role.label] = client_for(u)
    users["anon"] = APIClient()
    users["outsider"] = client_for(UserFactory())
    ac = client_for(admin)

    def robot(name, project, *access):
        body = project_robot(name=name, project=project, access=access)
        r = ac.post("/api/v2.0/robots", body, format="json")
        assert r.status_code == 201, r.content
        return robot_client(r.json())

    users["robot-pull"] = robot("p", "app", ("repository", "pull"), ("artifact", "read"))
    users["robot-other"] = robot(
        "o", "other", ("tag", "create"), ("tag", "delete"), ("artifact-addition", "read")
    )
    users["robot-tag"] = robot("t", "app", ("tag", "create"), ("tag", "delete"))
    base = "/api/v2.0/projects/app/repositories/web/artifacts"
    for who, cl in users.items():
        res = []
        res.append(cl.post(f"{base}/v1/tags", {"name": f"x-{who}"}, format="json").status_code)
        res.append(cl.post(f"{base}/nope/tags", {"name": f"y-{who}"}, format="json").status_code)
        res.append(cl.delete(f"{base}/v1/tags/v1").status_code)
        res.append(cl.get(f"{base}/v1/tags").status_code)
        res.append(cl.get(f"{base}/nope/tags").status_code)
        res.append(cl.get(f"{base}/v1/additions/build_history").status_code)
        res.append(cl.get("/api/v2.0/projects/nope/repositories/web/artifacts/v1/tags").status_code)
        print(who, res)
        if who in ("projectAdmin", "maintainer"):
            c.post(f"{base}/v1/tags", {"name": "v1"}, format="json")
            push_image(c, "app/web", "v1")
    for body in [
        {"name": 5},
        {},
        {"name": None},
        {"name": "a" * 129},
        {"name": "a/b"},
        {"name": ".x"},
        {"name": "x\n"},
        [],
        "str",
        {"name": ["a"]},
        {"name": "v1"},
        {"name": "-x"},
    ]:
        r = c.post(f"{base}/{d}/tags", body, format="json")
        print(json.dumps(body)[:30], r.status_code, r.content[:120])
    for raw in [b"{", b"\xff", b"null", b'{"name": "ok", "name": 1}']:
        r = c.generic("POST", f"{base}/{d}/tags", raw, content_type="application/json")
        print(raw, r.status_code, r.content[:100])
    for name in ["%2F", "..", "v1%00", "a" * 300]:
        r = c.delete(f"{base}/{d}/tags/{name}")
        print("del", name[:10], r.status_code, r.content[:100])
    print(c.get(f"{base}/v1/tags?q=name%3D~v&sort=-name&page_size=0").status_code)
    print(c.get(f"{base}/{d}/tags?with_immutable_status=maybe").status_code)
