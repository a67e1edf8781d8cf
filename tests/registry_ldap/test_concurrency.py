"""Onboarding the same directory user from two requests at once gives one account."""

import functools

import pytest
from django.contrib.auth.models import User

from registry import configuration
from tests.races import run_together
from tests.registry.factories import PASSWORD, UserFactory
from tests.registry_ldap.conftest import LDAP_CONFIGURATION, client_as


@pytest.mark.django_db(transaction=True)
def test_concurrent_imports_of_one_uid_create_one_user(seeded_directory):
    UserFactory(username="admin", is_superuser=True, is_staff=True)
    configuration.update(LDAP_CONFIGURATION)
    clients = [client_as("admin", PASSWORD) for _ in range(4)]

    def run(client):
        body = {"ldap_uid_list": ["bob"]}
        return client.post("/api/v2.0/ldap/users/import", body, format="json").status_code

    statuses = run_together([functools.partial(run, client) for client in clients])
    assert statuses == [200, 200, 200, 200]
    assert User.objects.filter(username="bob").count() == 1
    configuration.invalidate()
