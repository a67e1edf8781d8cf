"""Schemathesis over the store API with a real access token, so that bodies and query
parameters reach validation and the database (the shared contract test calls
anonymously and only sees 401s). Ids in paths point at existing rows of the store."""

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from tests.storefront.factories import (
    CategoryFactory,
    InstallationFactory,
    ProductFactory,
    ProductImageFactory,
    ScriptFactory,
    VariantFactory,
    issue_token,
)
from tests.storefront_webhooks.factories import WebhookFactory

schema = schemathesis.openapi.from_wsgi("/api/docs/storefront/schema/?format=json", application)
# The shared contract test runs the coverage phase (anonymously); here random bodies
# reach validation and the database.
schema.config.phases.coverage.enabled = False
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def seeded(db, settings):
    settings.STOREFRONT_RATE_LIMIT_SIZE = 10**9
    # Schemathesis calls the WSGI app directly: keep the test's connection open.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    installation = InstallationFactory()
    store = installation.store
    product = ProductFactory(store=store)
    ids = {
        "store_id": store.pk,
        "product_id": product.pk,
        "variant_id": VariantFactory(product=product).pk,
        "image_id": ProductImageFactory(product=product).pk,
        "category_id": CategoryFactory(store=store).pk,
        "script_id": ScriptFactory(store=store, app=installation.app).pk,
        "webhook_id": WebhookFactory(installation=installation).pk,
    }
    headers = {
        "Authentication": f"bearer {issue_token(installation)}",
        "User-Agent": "Fuzzer (ops@example.com)",
    }
    yield ids, headers
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@schema.parametrize()
# The same examples on every run: a failure found once is found again, and CI's
# verdict does not depend on the draw.
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_store_api_with_a_token_never_fails(case, seeded):
    ids, headers = seeded
    case.path_parameters = {
        name: ids.get(name, value) for name, value in (case.path_parameters or {}).items()
    }
    case.call_and_validate(headers=headers, checks=CHECKS)
