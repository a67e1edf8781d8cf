"""Shared pieces of the storefront security tests: a store API client through real URLs
and two stores, each with an installed app and its token."""

from dataclasses import dataclass

from storefront.models import Installation
from tests.storefront.conftest import StoreApi
from tests.storefront.factories import InstallationFactory, issue_token


@dataclass
class Tenant:
    installation: Installation
    token: str

    @property
    def store_id(self) -> int:
        return self.installation.store_id

    def api(self, client, store_id: int | None = None) -> StoreApi:
        """This app's token against its own store, or against `store_id`."""
        return StoreApi(client, store_id or self.store_id, self.token)


def tenant(**fields) -> Tenant:
    installation = InstallationFactory(**fields)
    return Tenant(installation, issue_token(installation))
