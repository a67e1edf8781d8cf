import json
from urllib.parse import urlencode

import pytest

from tests.storefront.factories import InstallationFactory, issue_token

USER_AGENT = "Catalog Sync (ops@example.com)"


class StoreApi:
    """Requests shaped like Tiendanube's official SDKs send them."""

    def __init__(self, client, store_id: int, token: str):
        self.client = client
        self.store_id = store_id
        self.token = token

    def url(self, path: str) -> str:
        return f"/v1/{self.store_id}/{path.lstrip('/')}"

    def request(self, method: str, path: str, body=None, headers=None, **extra):
        sent = {"Authentication": f"bearer {self.token}", "User-Agent": USER_AGENT}
        sent.update(headers or {})
        sent = {name: value for name, value in sent.items() if value is not None}
        kwargs = {}
        if body is not None:
            kwargs["data"] = body if isinstance(body, str | bytes) else json.dumps(body)
            kwargs["content_type"] = "application/json; charset=utf-8"
        return self.client.generic(method, self.url(path), headers=sent, **kwargs, **extra)

    def get(self, path, params=None, **kwargs):
        if params:
            path = f"{path}?{urlencode(params)}"
        return self.request("GET", path, **kwargs)

    def head(self, path, **kwargs):
        return self.request("HEAD", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request("POST", path, body if body is not None else {}, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request("PUT", path, body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request("DELETE", path, **kwargs)


@pytest.fixture
def installation(db):
    return InstallationFactory()


@pytest.fixture
def store(installation):
    return installation.store


@pytest.fixture
def api(client, installation):
    return StoreApi(client, installation.store_id, issue_token(installation))
