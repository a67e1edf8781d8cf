"""Schemathesis over our own OpenAPI schemas: every operation, as admin and anonymous.

No 5xx, and every response matches the schema. Bounded by a small example count per
operation so the whole contract run stays within a couple of minutes.
"""

import base64

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from config.docs import SERVICES
from config.wsgi import application

CALLERS = ["anonymous", "admin"]


def load(service):
    return schemathesis.openapi.from_wsgi(f"/api/docs/{service}/schema/?format=json", application)


def basic(username, password):
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


@pytest.fixture(autouse=True)
def keep_test_connection():
    """As Django's test client does: a request's start or end must not close the connection that
    holds the test's transaction (the WSGI app is called directly here)."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


# The worker makes the health check answer at once instead of waiting for a heartbeat.
@pytest.fixture(params=CALLERS)
def caller_headers(request, admin_user, celery_worker):
    if request.param == "admin":
        return {"Authorization": basic("admin", "password")}
    return {}


def semantic_checks(case) -> list:
    """An operation that documents 422 refuses some well-formed requests on their meaning
    (an unknown owner, a disallowed host): schema-valid data may get that 422."""
    responses = case.operation.definition.raw.get("responses", {})
    return [positive_data_acceptance] if "422" in responses else []


def _contract_test(schema):
    @pytest.mark.django_db
    @schema.parametrize()
    # The same examples on every run: a failure found once is found again, and CI's
    # verdict does not depend on the draw.
    @settings(
        max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    def test(case, caller_headers):
        case.call_and_validate(headers=caller_headers, excluded_checks=semantic_checks(case))

    return test


for _service in SERVICES:
    _schema = load(_service)
    if _schema.raw_schema.get("paths"):
        globals()[f"test_{_service}_contract"] = _contract_test(_schema)
