"""pytest plugin (loaded with `-p`): starts the real services before Django reads its settings."""

import os

import pytest

from tests.services.servers import selected_backend, start_services

_services = None


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    global _services
    # A wrapper runs before pytest-django's own hook, which imports the settings.
    if _services is None:
        _services = start_services(selected_backend())
        os.environ.update(_services.env)
    return (yield)


def pytest_unconfigure(config):
    if _services is not None:
        _services.stop()
