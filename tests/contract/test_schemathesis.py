"""Schemathesis over our own OpenAPI schemas: every operation, as admin and anonymous.

No 5xx, and every response matches the schema. Bounded by a small example count per
operation so the whole contract run stays within a couple of minutes.
"""

import base64

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from config.docs import SERVICES
from config.wsgi import application

CALLERS = ["anonymous", "admin"]


def load(service):
    return schemathesis.openapi.from_wsgi(f"/api/docs/{service}/schema/?format=json", application)


def basic(username, password):
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


# The worker makes the health check answer at once instead of waiting for a heartbeat.
@pytest.fixture(params=CALLERS)
def caller_headers(request, admin_user, celery_worker):
    if request.param == "admin":
        return {"Authorization": basic("admin", "password")}
    return {}


@pytest.fixture(autouse=True)
def keep_test_connection():
    """Schemathesis calls the WSGI app directly, not through Django's test client, so the
    request_finished signal would close the test's database connection (it is inside the
    test transaction) and the next request would fail. Do what the test client does."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def _contract_test(schema):
    @pytest.mark.django_db
    @schema.parametrize()
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    def test(case, caller_headers):
        case.call_and_validate(headers=caller_headers)

    return test


for _service in SERVICES:
    _schema = load(_service)
    if _schema.raw_schema.get("paths"):
        globals()[f"test_{_service}_contract"] = _contract_test(_schema)
