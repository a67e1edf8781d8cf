"""An artifact's additions (Harbor's getAddition): what its processor for the artifact's
type derives from the stored manifest and blobs.

An image manifest gives `build_history` (its config's `history`, re-encoded as Harbor's Go
structs encode it); a Helm chart gives `values.yaml`, `readme.md` and `dependencies`
(registry.services.chart_additions); any other addition or type is Harbor's 400. Blobs
are read with a bound (registry.services.artifact_blobs): an oversized or malformed one is
a 400 naming the artifact, never an unbounded read or a 500. The vulnerabilities addition
needs a scanner: none is configured, so it is Harbor's answer for a project without a
scanner registration.
"""

import re
from dataclasses import dataclass
from datetime import datetime

from registry.distribution.manifest_documents import IMAGE_MANIFESTS, MAX_CONFIG_BYTES
from registry.errors import BadRequest, NotFound
from registry.models import Artifact
from registry.services import chart_additions
from registry.services.artifact_blobs import (
    descriptor_digest,
    go_json,
    read_json,
    read_manifest,
    unreadable,
)

JSON_TYPE = "application/json; charset=utf-8"
BUILD_HISTORY = "BUILD_HISTORY"


@dataclass(frozen=True)
class Addition:
    content: bytes
    content_type: str


def get_addition(artifact: Artifact, name: str) -> Addition:
    """The addition `name` (one of the schema's, which Harbor upper-cases) of `artifact`."""
    name = name.upper()
    is_manifest = artifact.manifest_media_type in IMAGE_MANIFESTS
    if artifact.type == Artifact.Type.IMAGE and is_manifest:
        if name != BUILD_HISTORY:
            raise BadRequest(f"addition {name} isn't supported for IMAGE(manifest version 2)")
        return Addition(build_history(artifact), JSON_TYPE)
    if artifact.type == Artifact.Type.CHART and is_manifest:
        if name not in chart_additions.ADDITIONS:
            raise BadRequest(f"addition {name} isn't supported for CHART")
        return Addition(*chart_additions.chart_addition(artifact, name))
    if artifact.type in (Artifact.Type.IMAGE, Artifact.Type.CNAB):
        raise BadRequest(f"addition {name} isn't supported")  # an index
    raise BadRequest(
        f"the processor for artifact {artifact.type} not found, cannot get the addition"
    )


def vulnerabilities(artifact: Artifact) -> Addition:
    """No scanner is registered, for any project: Harbor's scan controller answers so."""
    raise NotFound(f"no scanner registration configured for project: {artifact.project_id}")


# --- build history --------------------------------------------------------------------------

# Go's encoding of an OCI image config's history entry: these fields in this order, the
# empty ones left out.
HISTORY_FIELDS = ("created", "created_by", "author", "comment", "empty_layer")
RFC3339 = re.compile(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", re.ASCII)


def build_history(artifact: Artifact) -> bytes:
    """The config's `history` as Harbor sends it: decoded into Go's image structs and
    encoded again (unknown keys dropped, times in RFC 3339 with nanoseconds, HTML
    characters escaped), `null` when there is none."""
    config_digest = descriptor_digest(artifact, read_manifest(artifact).get("config"), "config")
    config = read_json(artifact, config_digest, MAX_CONFIG_BYTES, "config")
    history = _field(config, "history")
    if history is None:
        return b"null"
    if not isinstance(history, list):
        raise unreadable(artifact, "config")
    try:
        entries = [_history_entry(entry) for entry in history]
    except (TypeError, ValueError) as exc:
        raise unreadable(artifact, "config") from exc
    return go_json(entries)


def _field(document: dict, name: str):
    """Go's decoding: a key matches a field case-insensitively, the last one wins."""
    found = None
    for key, value in document.items():
        if key.lower() == name:
            found = value
    return found


def _history_entry(entry) -> dict:
    if entry is None:
        return {}  # Go decodes null into a zero entry
    if not isinstance(entry, dict):
        raise TypeError("history entry")
    result = {}
    for name in HISTORY_FIELDS:
        value = _field(entry, name)
        if value is None:
            continue
        if name == "empty_layer":
            if not isinstance(value, bool):
                raise TypeError(name)
            if value:
                result[name] = True
        elif not isinstance(value, str):
            raise TypeError(name)
        elif name == "created":
            result[name] = go_time(value)
        elif value:
            result[name] = value
    return result


def go_time(text: str) -> str:
    """An RFC 3339 time as Go's time.Time encodes it again: fraction to nanoseconds,
    trailing zeros dropped, a zero offset as Z."""
    match = RFC3339.fullmatch(text)
    if not match:
        raise ValueError("time")
    day, clock, fraction, zone = match.groups()
    datetime.fromisoformat(f"{day}T{clock}")  # the date and time must exist
    if zone != "Z" and int(zone[1:3]) > 23:
        raise ValueError("time zone")
    fraction = (fraction or "")[:9].rstrip("0")
    zone = "Z" if zone in ("+00:00", "-00:00") else zone
    return f"{day}T{clock}{'.' + fraction if fraction else ''}{zone}"
