"""Reading an artifact's stored manifest and blobs for the management API, with a bound:
a blob over its limit is refused rather than read whole, a malformed one is a 400 naming
the artifact (never a 500), a missing one is NotFound, and so is one the artifact's
repository does not hold (storage is shared by every project: a manifest may name any
digest, e.g. as a foreign layer, which its push does not require the repository to hold).
What is derived from them is encoded as Harbor's Go code encodes it (`go_json`)."""

import json
import re

from registry.distribution import storage
from registry.distribution.manifest_documents import MAX_MANIFEST_BYTES
from registry.distribution.models import RepositoryBlob
from registry.errors import BadRequest, NotFound
from registry.models import Artifact

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def unreadable(artifact: Artifact, what: str) -> BadRequest:
    return BadRequest(f"the {what} of artifact {artifact.digest} cannot be read")


def read_blob(artifact: Artifact, digest: str, limit: int, what: str) -> bytes:
    """A blob's bytes, `limit` at most: one bigger is refused, not read whole. Only a
    blob the artifact's repository holds, as Harbor reads it through the registry by the
    repository's name (a released one included: the repository still reaches it)."""
    missing = NotFound(f"the {what} of artifact {artifact.digest} not found")
    held = RepositoryBlob.objects.filter(
        repository_name=artifact.repository.name, blob__digest=digest
    )
    if not held.exists():
        raise missing
    try:
        content = storage.read_bytes(digest, limit + 1)
    except FileNotFoundError as exc:
        raise missing from exc
    if len(content) > limit:
        raise unreadable(artifact, what)
    return content


def read_json(artifact: Artifact, digest: str, limit: int, what: str) -> dict:
    """A blob holding a JSON object."""
    content = read_blob(artifact, digest, limit, what)
    try:
        document = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise unreadable(artifact, what) from exc
    if not isinstance(document, dict):
        raise unreadable(artifact, what)
    return document


def read_manifest(artifact: Artifact) -> dict:
    return read_json(artifact, artifact.digest, MAX_MANIFEST_BYTES, "manifest")


def descriptor_digest(artifact: Artifact, descriptor, what: str) -> str:
    """The digest a manifest's descriptor names (the push checked it; stored bytes are
    checked again, as they are read)."""
    digest = descriptor.get("digest") if isinstance(descriptor, dict) else None
    if not isinstance(digest, str):
        raise unreadable(artifact, what)
    return digest


def go_json(value) -> bytes:
    """JSON as Go's encoding/json writes it: compact, <, > and & escaped, and U+2028/9."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # A lone surrogate (JSON's "\ud800" unpaired) cannot be UTF-8: Go decoded it as U+FFFD.
    text = LONE_SURROGATE.sub("\ufffd", text)
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text.encode()
