# ruff: noqa: F811  (pytest fixtures imported from the directory tests)
"""The directory's bind password belongs to the directory it was given for: when
PUT /configurations points `ldap_url` at another server without a new password, the stored
one is cleared and never sent there (neither by a ping nor by a sign-in)."""

import socket
import threading

import pytest

from registry import configuration
from tests.registry_ldap.conftest import (  # noqa: F401
    LDAP_CONFIGURATION,
    READER_PASSWORD,
    admin,
    admin_client,
    client_as,
    fresh_configuration,
    seeded_directory,
)

CONFIGURATIONS = "/api/v2.0/configurations"


@pytest.fixture
def eavesdropper():
    """A server that records every byte an LDAP client sends it and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    heard = bytearray()
    stop = threading.Event()

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connection.settimeout(0.2)
            with connection:
                while not stop.is_set():
                    try:
                        data = connection.recv(65536)
                    except TimeoutError:
                        continue
                    if not data:
                        break
                    heard.extend(data)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"ldap://127.0.0.1:{listener.getsockname()[1]}", heard
    stop.set()
    thread.join()
    listener.close()


def test_a_new_directory_address_without_a_password_clears_the_stored_one(
    admin_client, seeded_directory, eavesdropper
):
    url, heard = eavesdropper
    assert admin_client.put(CONFIGURATIONS, LDAP_CONFIGURATION, format="json").status_code == 200
    assert client_as("alice", "alice-secret").get("/api/v2.0/users/current").status_code == 200
    moved = admin_client.put(CONFIGURATIONS, {"ldap_url": url, "ldap_timeout": 1}, format="json")
    assert moved.status_code == 200
    assert configuration.get("ldap_search_password") == ""
    admin_client.post("/api/v2.0/ldap/ping")
    client_as("bob", "bob-secret").get("/api/v2.0/users/current")
    assert READER_PASSWORD.encode() not in heard
    # Pointing back at the real directory needs the password again.
    back = {"ldap_url": LDAP_CONFIGURATION["ldap_url"], "ldap_timeout": 3}
    assert admin_client.put(CONFIGURATIONS, back, format="json").status_code == 200
    assert configuration.get("ldap_search_password") == ""
    with_password = {**back, "ldap_search_password": READER_PASSWORD}
    assert admin_client.put(CONFIGURATIONS, with_password, format="json").status_code == 200
    assert admin_client.post("/api/v2.0/ldap/ping").json() == {"success": True}


def test_the_same_address_keeps_the_stored_password(admin_client, seeded_directory):
    assert admin_client.put(CONFIGURATIONS, LDAP_CONFIGURATION, format="json").status_code == 200
    same = {"ldap_url": LDAP_CONFIGURATION["ldap_url"], "ldap_timeout": 5}
    assert admin_client.put(CONFIGURATIONS, same, format="json").status_code == 200
    assert configuration.get("ldap_search_password") == READER_PASSWORD
    assert admin_client.post("/api/v2.0/ldap/ping").json() == {"success": True}
