"""Harbor's registry authentication: challenges, the token service, role-based grants."""

import jwt
import requests

from registry.models import Role
from tests.registry.factories import PASSWORD, MemberFactory, UserFactory
from tests.registry_oci.conftest import Registry


def get_token(url: str, *scopes: str, auth=None) -> requests.Response:
    params = [("service", "harbor-registry")] + [("scope", scope) for scope in scopes]
    return requests.get(f"{url}/service/token", params=params, auth=auth)


def access_of(token: str) -> list:
    return jwt.decode(token, options={"verify_signature": False})["access"]


def test_base_endpoint_challenges_anonymous_clients(registry_url):
    response = requests.get(f"{registry_url}/v2/")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="{registry_url}/service/token",service="harbor-registry"'
    )
    assert response.headers["Docker-Distribution-API-Version"] == "registry/2.0"
    assert response.json() == {
        "errors": [{"code": "UNAUTHORIZED", "message": "authentication required", "detail": None}]
    }


def test_base_endpoint_accepts_basic_and_bearer(registry_url, owner):
    assert requests.get(f"{registry_url}/v2/", auth=(owner.username, PASSWORD)).status_code == 200
    token = get_token(registry_url, auth=(owner.username, PASSWORD)).json()["token"]
    bearer = requests.get(f"{registry_url}/v2/", headers={"Authorization": f"Bearer {token}"})
    assert bearer.status_code == 200
    assert bearer.json() == {}
    wrong = requests.get(f"{registry_url}/v2/", auth=(owner.username, "wrong"))
    assert wrong.status_code == 401
    assert wrong.headers["WWW-Authenticate"] == 'Basic realm="harbor"'
    forged = requests.get(f"{registry_url}/v2/", headers={"Authorization": "Bearer not.a.token"})
    assert forged.status_code == 401


def test_token_grants_what_the_role_allows(registry_url, project, public_project, owner):
    guest = UserFactory(username="guest")
    MemberFactory(project=project, user=guest, role=Role.GUEST)
    scopes = ("repository:team/app:pull,push,delete", "repository:pub/app:pull,push")

    owner_token = get_token(registry_url, *scopes, auth=(owner.username, PASSWORD)).json()
    assert owner_token["expires_in"] == 1800
    assert owner_token["access_token"] == owner_token["token"]
    assert access_of(owner_token["token"]) == [
        {"type": "repository", "name": "team/app", "actions": ["delete", "pull", "push"]},
        {"type": "repository", "name": "pub/app", "actions": ["pull", "push"]},
    ]
    guest_token = get_token(registry_url, *scopes, auth=("guest", PASSWORD)).json()["token"]
    assert access_of(guest_token) == [
        {"type": "repository", "name": "team/app", "actions": ["pull"]},
        {"type": "repository", "name": "pub/app", "actions": ["pull"]},
    ]
    anonymous_token = get_token(registry_url, *scopes).json()["token"]
    assert access_of(anonymous_token) == [
        {"type": "repository", "name": "team/app", "actions": []},
        {"type": "repository", "name": "pub/app", "actions": ["pull"]},
    ]
    # Several scopes in one parameter, space separated, are read as well.
    joined = get_token(registry_url, " ".join(scopes), auth=("guest", PASSWORD)).json()["token"]
    assert len(access_of(joined)) == 2
    assert get_token(registry_url, *scopes, auth=("guest", "wrong")).status_code == 401


def test_catalog_scope_only_for_admins(registry_url, owner, admin):
    scope = "registry:catalog:*"
    admin_token = get_token(registry_url, scope, auth=(admin.username, PASSWORD)).json()["token"]
    assert access_of(admin_token) == [{"type": "registry", "name": "catalog", "actions": ["*"]}]
    owner_token = get_token(registry_url, scope, auth=(owner.username, PASSWORD)).json()["token"]
    assert access_of(owner_token)[0]["actions"] == []
    listed = requests.get(
        f"{registry_url}/v2/_catalog", headers={"Authorization": f"Bearer {admin_token}"}
    )
    assert listed.status_code == 200


def test_bearer_token_allows_only_its_scope(registry_url, project, owner):
    token = get_token(
        registry_url, "repository:team/app:pull,push", auth=(owner.username, PASSWORD)
    )
    headers = {"Authorization": f"Bearer {token.json()['token']}"}
    allowed = requests.post(f"{registry_url}/v2/team/app/blobs/uploads/", headers=headers)
    assert allowed.status_code == 202
    # A token lacking the scope: 403 and the challenge for the scope needed, so that token
    # clients (oras) fetch a wider token.
    elsewhere = requests.post(f"{registry_url}/v2/team/other/blobs/uploads/", headers=headers)
    assert elsewhere.status_code == 403
    assert elsewhere.json()["errors"][0]["code"] == "DENIED"
    assert elsewhere.headers["WWW-Authenticate"] == (
        f'Bearer realm="{registry_url}/service/token",service="harbor-registry",'
        'scope="repository:team/other:pull,push",error="insufficient_scope"'
    )


def test_anonymous_challenge_names_the_scope(registry_url, project):
    response = requests.post(f"{registry_url}/v2/team/app/blobs/uploads/")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="{registry_url}/service/token",service="harbor-registry",'
        'scope="repository:team/app:pull,push"'
    )
    pull = requests.get(f"{registry_url}/v2/team/app/tags/list")
    assert pull.headers["WWW-Authenticate"].endswith('scope="repository:team/app:pull"')


def test_anonymous_pull_of_a_public_project(registry_url, public_project, owner):
    Registry(registry_url, owner.username).push_image("pub/app", "v1")
    anonymous = Registry(registry_url)
    assert anonymous.request("GET", "/v2/pub/app/manifests/v1").status_code == 200
    refused = anonymous.request("POST", "/v2/pub/app/blobs/uploads/")
    assert refused.status_code == 401


def test_guest_pulls_but_cannot_push_or_delete(registry_url, project, owner):
    digest = Registry(registry_url, owner.username).push_image("team/app", "v1")
    guest = UserFactory(username="guest")
    MemberFactory(project=project, user=guest, role=Role.GUEST)
    as_guest = Registry(registry_url, "guest")
    assert as_guest.request("GET", "/v2/team/app/manifests/v1").status_code == 200
    push = as_guest.request("POST", "/v2/team/app/blobs/uploads/")
    assert push.status_code == 401
    assert push.headers["WWW-Authenticate"] == 'Basic realm="harbor"'
    assert as_guest.request("DELETE", f"/v2/team/app/manifests/{digest}").status_code == 401
    developer = UserFactory(username="dev")
    MemberFactory(project=project, user=developer, role=Role.DEVELOPER)
    as_developer = Registry(registry_url, "dev")
    assert as_developer.request("POST", "/v2/team/app/blobs/uploads/").status_code == 202
    assert as_developer.request("DELETE", f"/v2/team/app/manifests/{digest}").status_code == 401
    outsider = Registry(registry_url, UserFactory(username="outsider").username)
    assert outsider.request("GET", "/v2/team/app/manifests/v1").status_code == 401


def test_the_oauth_post_of_containerd_is_405_so_that_it_falls_back_to_get(registry_url, owner):
    """containerd (Docker 29's image store, nerdctl, buildkit) first POSTs its credentials
    (grant_type=password) and falls back to GET with Basic on 405, 404, 401 or 400 only,
    never on 403. Harbor's token service has no POST: 405."""
    form = {
        "grant_type": "password",
        "service": "harbor-registry",
        "scope": "repository:team/app:pull,push",
        "client_id": "containerd-client",
        "username": owner.username,
        "password": PASSWORD,
    }
    posted = requests.post(f"{registry_url}/service/token", data=form)
    assert posted.status_code == 405
    assert posted.json()["errors"][0]["code"] == "UNSUPPORTED"
    assert "GET" in posted.headers["Allow"]
    fallback = get_token(registry_url, "repository:team/app:pull", auth=(owner.username, PASSWORD))
    assert fallback.status_code == 200
