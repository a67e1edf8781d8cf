import pytest


@pytest.mark.django_db(transaction=True)
def test_health_reports_every_component_healthy_with_a_real_worker(client, celery_worker):
    response = client.get("/api/v2.0/health")
    assert response.status_code == 200
    body = response.json()
    assert [c["name"] for c in body["components"]] == [
        "core",
        "database",
        "jobservice",
        "portal",
        "redis",
        "registry",
        "registryctl",
    ]
    assert body == {
        "status": "healthy",
        "components": [{"name": c["name"], "status": "healthy"} for c in body["components"]],
    }


@pytest.mark.django_db
def test_health_needs_no_authentication_and_ignores_bad_credentials(client):
    response = client.get("/api/v2.0/health", HTTP_AUTHORIZATION="Basic Ym9ndXM6Ym9ndXM=")
    assert response.status_code == 200
    assert response.json()["status"] in {"healthy", "unhealthy"}
