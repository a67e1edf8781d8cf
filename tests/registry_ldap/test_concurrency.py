"""Onboarding the same directory user from two requests at once gives one account."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from registry import configuration
from tests.registry.factories import PASSWORD, UserFactory
from tests.registry_ldap.conftest import LDAP_CONFIGURATION, client_as


@pytest.mark.django_db(transaction=True)
def test_concurrent_imports_of_one_uid_create_one_user(seeded_directory):
    UserFactory(username="admin", is_superuser=True, is_staff=True)
    configuration.update(LDAP_CONFIGURATION)
    statuses = []
    barrier = threading.Barrier(4)

    def run():
        try:
            client = client_as("admin", PASSWORD)
            barrier.wait()
            response = client.post(
                "/api/v2.0/ldap/users/import", {"ldap_uid_list": ["bob"]}, format="json"
            )
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200, 200, 200, 200]
    assert User.objects.filter(username="bob").count() == 1
    configuration.invalidate()
