"""Domain errors and Harbor's error answers: every code has its status in the one table."""

import pytest

from registry import errors
from registry.api.exceptions import STATUS_OF_CODE
from registry.ldap import client
from tests.registry.factories import ProjectFactory, push


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_domain_error_code_has_a_harbor_status():
    kinds = [errors.RegistryError, *_subclasses(errors.RegistryError)]
    # The directory's errors are domain errors too (409 unconfigured, 503 unreachable).
    assert client.DirectoryUnavailable in kinds
    missing = [kind.__name__ for kind in kinds if kind.code not in STATUS_OF_CODE]
    assert missing == []


@pytest.mark.django_db
def test_a_domain_error_answers_with_harbor_status_body_and_no_extra_headers(admin_client, alice):
    project = ProjectFactory(name="busy", owner=alice)
    push(project, "app", tag="v1")
    response = admin_client.delete("/api/v2.0/projects/busy")
    assert response.status_code == 412
    assert response["Content-Type"] == "application/json"
    assert "WWW-Authenticate" not in response
    assert response.json() == {
        "errors": [
            {
                "code": "PRECONDITION",
                "message": "precondition failed: the project contains repositories, "
                "can not be deleted",
            }
        ]
    }
