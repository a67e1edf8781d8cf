"""Bearer tokens of the registry token service (Docker's token authentication, as Harbor).

A token is a JWT (HS256, keyed by a digest of SECRET_KEY) whose `access` claim lists the
granted `{"type", "name", "actions"}` entries, as the Docker token specification has it.
"""

import functools
import hashlib
import hmac
import re
import time
import uuid
from dataclasses import dataclass

import jwt
from django.conf import settings

ISSUER = "harbor-token-issuer"
ALGORITHM = "HS256"
SCOPE_SHAPE = re.compile(r"^([a-z0-9]+(?:\([a-z0-9]+\))?):(.+):([a-z*,]*)$")


@dataclass(frozen=True)
class Scope:
    type: str
    name: str
    actions: frozenset[str]

    def claim(self) -> dict:
        return {"type": self.type, "name": self.name, "actions": sorted(self.actions)}


def parse_scopes(values: list[str]) -> list[Scope]:
    """Scopes from `scope` parameters; each may hold several space-separated scopes.

    Malformed entries are ignored, as the Docker token service does.
    """
    scopes = []
    for value in values:
        for item in value.split():
            match = SCOPE_SHAPE.match(item)
            if match:
                kind, name, actions = match.groups()
                scopes.append(Scope(kind, name, frozenset(a for a in actions.split(",") if a)))
    return scopes


def _signing_key() -> bytes:
    return hmac.new(settings.SECRET_KEY.encode(), b"registry-token", hashlib.sha256).digest()


def issue(subject: str, granted: list[Scope]) -> dict:
    """The token service's answer: the token, its lifetime and issue time."""
    now = int(time.time())
    lifetime = settings.REGISTRY_TOKEN_EXPIRATION_MINUTES * 60
    claims = {
        "iss": ISSUER,
        "sub": subject,
        "aud": settings.REGISTRY_TOKEN_SERVICE,
        "iat": now,
        "nbf": now,
        "exp": now + lifetime,
        "jti": uuid.uuid4().hex,
        "access": [scope.claim() for scope in granted],
    }
    token = jwt.encode(claims, _signing_key(), algorithm=ALGORITHM)
    return {
        "token": token,
        "access_token": token,
        "expires_in": lifetime,
        "issued_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
    }


def verify(token: str) -> dict | None:
    """The claims of a valid, unexpired token of ours, else None (read-only: shared)."""
    claims = _signed_claims(token, _signing_key(), settings.REGISTRY_TOKEN_SERVICE)
    now = time.time()
    if claims is None or not claims["nbf"] <= now < claims["exp"]:
        return None
    return claims


@functools.lru_cache(maxsize=4096)
def _signed_claims(token: str, key: bytes, audience: str) -> dict | None:
    """The claims of a token signed with `key` for `audience`; times not checked.

    A client sends its token with every request of a pull: the signature is checked once
    per token, key and audience in a process (the times on every call, by `verify`).
    What the token grants comes only from its claims, never from this cache.
    """
    try:
        return jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            audience=audience,
            issuer=ISSUER,
            options={"verify_exp": False, "verify_nbf": False, "require": ["exp", "nbf"]},
        )
    except jwt.InvalidTokenError:
        return None
