"""Manifest documents: the media types the registry takes, the body read within its limit,
and the checks a document passes before anything is recorded (MANIFEST_INVALID otherwise).
"""

import json
import re

from config import json_shape
from registry.distribution import digests, storage
from registry.distribution.errors import DigestInvalid, ManifestInvalid, SizeInvalid, TooLarge

MAX_MANIFEST_BYTES = 4 * 1024 * 1024
# Image configs are read for `extra_attrs`; anything bigger is not an image config.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
# The longest media or artifact type recorded (the columns' width).
MAX_TYPE_LENGTH = 255
# \Z, not $: "$" also matches before a final newline, which no tag may hold.
TAG_SHAPE = re.compile(r"^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}\Z")

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
IMAGE_MANIFESTS = (OCI_MANIFEST, DOCKER_MANIFEST)
INDEXES = (OCI_INDEX, DOCKER_LIST)
IMAGE_CONFIGS = (
    "application/vnd.oci.image.config.v1+json",
    "application/vnd.docker.container.image.v1+json",
)
# Layers kept outside the registry (Windows base layers, non-distributable OCI layers).
FOREIGN_LAYERS = (
    "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip",
    "application/vnd.oci.image.layer.nondistributable.v1.tar",
    "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
    "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd",
)


def read_manifest_body(stream, length: int | None) -> bytes:
    """The body, read no further than the limit: a chunked body announces no length."""
    if length is not None and length > MAX_MANIFEST_BYTES:
        raise TooLarge(f"manifest is larger than {MAX_MANIFEST_BYTES} bytes")
    received = bytearray()
    try:
        for chunk in storage.read_body(stream, length, limit=MAX_MANIFEST_BYTES + 1):
            received += chunk
    except ConnectionError as exc:
        raise SizeInvalid("request body shorter than its Content-Length") from exc
    if len(received) > MAX_MANIFEST_BYTES:
        raise TooLarge(f"manifest is larger than {MAX_MANIFEST_BYTES} bytes")
    return bytes(received)


def _typed_members(value: dict, where: str) -> None:
    """The members recorded as they are must have the OCI types (Distribution decodes them
    into Go structs): a media or artifact type is a string that fits its column, and
    annotations map strings to strings."""
    for key in ("mediaType", "artifactType"):
        if value.get(key) is not None and (
            not isinstance(value[key], str) or len(value[key]) > MAX_TYPE_LENGTH
        ):
            raise ManifestInvalid(f"{where}{key} is not a valid type")
    annotations = value.get("annotations")
    if annotations is not None and (
        not isinstance(annotations, dict)
        or not all(isinstance(item, str) for item in annotations.values())
    ):
        raise ManifestInvalid(f"{where}annotations is not a map of strings")


def _descriptor(value, where: str) -> dict:
    if not isinstance(value, dict) or not isinstance(value.get("digest"), str):
        raise ManifestInvalid(f"{where} is not a descriptor")
    if not isinstance(value.get("size"), int) or value["size"] < 0:
        raise ManifestInvalid(f"{where} has no valid size")
    _typed_members(value, f"{where}.")
    try:
        digests.parse(value["digest"])
    except DigestInvalid as exc:
        raise ManifestInvalid(f"{where} has an invalid digest") from exc
    return value


def parse_manifest(content: bytes, content_type: str) -> tuple[dict, str]:
    """The manifest document and its media type; MANIFEST_INVALID when malformed."""
    try:
        document = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ManifestInvalid("manifest is not valid JSON") from exc
    if not isinstance(document, dict):
        raise ManifestInvalid("manifest is not a JSON object")
    # Its annotations and index entries are stored and rendered as they are.
    problem = json_shape.problem(document)
    if problem:
        raise ManifestInvalid(f"manifest {problem}")
    _typed_members(document, "")
    declared = document.get("mediaType")
    content_type = content_type.split(";")[0].strip()
    if declared and content_type and declared != content_type:
        raise ManifestInvalid(f"mediaType {declared} does not match Content-Type {content_type}")
    media_type = declared or content_type
    if not media_type:
        media_type = OCI_INDEX if "manifests" in document else OCI_MANIFEST
    if media_type not in IMAGE_MANIFESTS + INDEXES:
        raise ManifestInvalid(f"unsupported manifest media type {media_type}")
    if document.get("schemaVersion") != 2:
        raise ManifestInvalid("schemaVersion must be 2")
    if media_type in IMAGE_MANIFESTS:
        _descriptor(document.get("config"), "config")
        layers = document.get("layers")
        if not isinstance(layers, list):
            raise ManifestInvalid("layers must be a list")
        for position, layer in enumerate(layers):
            _descriptor(layer, f"layers[{position}]")
    else:
        children = document.get("manifests")
        if not isinstance(children, list):
            raise ManifestInvalid("manifests must be a list")
        for position, child in enumerate(children):
            _descriptor(child, f"manifests[{position}]")
            platform, urls = child.get("platform"), child.get("urls")
            if (platform is not None and not isinstance(platform, dict)) or (
                urls is not None
                and not (isinstance(urls, list) and all(isinstance(u, str) for u in urls))
            ):
                raise ManifestInvalid(f"manifests[{position}] has an invalid platform or urls")
    if "subject" in document:
        _descriptor(document["subject"], "subject")
    return document, media_type
