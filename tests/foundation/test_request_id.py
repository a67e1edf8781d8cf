import uuid


def test_request_id_is_echoed(client):
    response = client.get("/api/v2.0/xyz", HTTP_X_REQUEST_ID="abc-123")
    assert response["X-Request-Id"] == "abc-123"


def test_request_id_is_generated_when_absent_or_unsafe(client):
    generated = client.get("/api/v1/anything")["X-Request-Id"]
    assert uuid.UUID(generated).version == 4
    unsafe = client.get("/api/v1/anything", HTTP_X_REQUEST_ID="bad id\nwith newline")[
        "X-Request-Id"
    ]
    assert unsafe != "bad id\nwith newline"
    assert uuid.UUID(unsafe)
