"""Content digests (`algorithm:hex`) as the OCI image specification defines them."""

import hashlib
import re

from registry.distribution.errors import DigestInvalid

ALGORITHMS = {"sha256": 64, "sha512": 128}
DIGEST_SHAPE = re.compile(r"^([a-z0-9]+(?:[+._-][a-z0-9]+)*):([a-zA-Z0-9=_-]+)\Z")


def looks_like_digest(reference: str) -> bool:
    return DIGEST_SHAPE.match(reference) is not None


def parse(digest: str) -> tuple[str, str]:
    """(algorithm, hex) of a digest we can verify; DIGEST_INVALID otherwise."""
    match = DIGEST_SHAPE.match(digest or "")
    if not match:
        raise DigestInvalid("invalid digest", detail={"digest": digest})
    algorithm, hexpart = match.groups()
    if algorithm not in ALGORITHMS:
        raise DigestInvalid(f"unsupported digest algorithm {algorithm}", detail={"digest": digest})
    if len(hexpart) != ALGORITHMS[algorithm] or not re.fullmatch(r"[0-9a-f]+", hexpart):
        raise DigestInvalid("invalid digest", detail={"digest": digest})
    return algorithm, hexpart


def new_hasher(algorithm: str):
    return hashlib.new(algorithm)


def of_bytes(data: bytes, algorithm: str = "sha256") -> str:
    return f"{algorithm}:{hashlib.new(algorithm, data).hexdigest()}"
