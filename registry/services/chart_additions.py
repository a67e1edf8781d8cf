"""A Helm chart's additions, as Harbor's chart processor derives them from the chart
archive (the manifest's layer that is not its config): `values.yaml` and `readme.md` as
stored in the chart's top directory (empty when absent), `dependencies` from Chart.yaml
(apiVersion v2) or requirements.yaml (v1) as Harbor's Go structs encode them.

Bounds: the archive is read up to MAX_ARCHIVE_BYTES, decompressed up to Helm's own limit
of MAX_DECOMPRESSED_BYTES, each file kept up to MAX_FILE_BYTES, the YAML parsed (Chart.yaml,
requirements.yaml) up to MAX_METADATA_BYTES; YAML aliases are refused (a few bytes of them
expand without bound). Past any bound, or malformed: a 400.
"""

import gzip
import io
import tarfile
import zlib

import yaml

from registry.models import Artifact
from registry.services.artifact_blobs import (
    descriptor_digest,
    go_json,
    read_blob,
    read_manifest,
    unreadable,
)

ADDITIONS = ("VALUES.YAML", "README.MD", "DEPENDENCIES")
CONTENT_TYPES = {
    "VALUES.YAML": "text/plain; charset=utf-8",
    "README.MD": "text/markdown; charset=utf-8",
    "DEPENDENCIES": "application/json; charset=utf-8",
}
MAX_ARCHIVE_BYTES = 16 * 1024 * 1024
MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024
MAX_FILE_BYTES = 4 * 1024 * 1024
# PyYAML parses some 50 KB a second of a flow list: a 4 MB Chart.yaml took minutes of CPU
# on every read of an addition (by anyone, in a public project). Helm's metadata files
# are a few KB.
MAX_METADATA_BYTES = 64 * 1024
METADATA = ("CHART.YAML", "REQUIREMENTS.YAML")
MAX_SPECIAL_HEADER_BYTES = 1024 * 1024  # Go's archive/tar maxSpecialFileSize
SPECIAL_HEADERS = (
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
)
KEPT = ("CHART.YAML", "REQUIREMENTS.YAML", "VALUES.YAML", "README.MD")
# Helm's Dependency as Go encodes it: (JSON name, Python type, left out when empty).
DEPENDENCY_FIELDS = (
    ("name", str, False),
    ("version", str, True),
    ("repository", str, False),
    ("condition", str, True),
    ("tags", list, True),
    ("enabled", bool, True),
    ("import-values", list, True),
    ("alias", str, True),
)


class ChartError(ValueError):
    pass


def chart_addition(artifact: Artifact, name: str) -> tuple[bytes, str]:
    """The addition `name` (one of ADDITIONS) of a chart: its bytes and content type."""
    manifest = read_manifest(artifact)
    config = descriptor_digest(artifact, manifest.get("config"), "manifest")
    layers = manifest.get("layers")
    layers = layers if isinstance(layers, list) else []
    digests = [descriptor_digest(artifact, layer, "manifest") for layer in layers]
    archive = next((digest for digest in digests if digest != config), None)
    if archive is None:
        # Harbor's processor returns no addition at all then: an empty answer.
        return b"", CONTENT_TYPES[name]
    content = read_blob(artifact, archive, MAX_ARCHIVE_BYTES, "chart")
    try:
        files = _top_files(content)
        # Read whatever is asked: Helm's loader refuses a chart whose metadata is malformed.
        dependencies = _dependencies(files)
        body = go_json(dependencies) if name == "DEPENDENCIES" else files.get(name, b"")
    except (ChartError, tarfile.TarError, OSError, EOFError, zlib.error, yaml.YAMLError) as exc:
        raise unreadable(artifact, "chart") from exc
    except (TypeError, ValueError, RecursionError) as exc:  # a value JSON cannot hold
        raise unreadable(artifact, "chart") from exc
    return body, CONTENT_TYPES[name]


class _Bounded(io.RawIOBase):
    """A stream that fails once more than `limit` bytes were read from it."""

    def __init__(self, stream, limit: int):
        self.stream, self.left = stream, limit

    def readable(self):
        return True

    def readinto(self, buffer):
        data = self.stream.read(len(buffer))
        self.left -= len(data)
        if self.left < 0:
            raise ChartError("the chart decompresses past Helm's limit")
        buffer[: len(data)] = data
        return len(data)


def _top_files(content: bytes) -> dict[str, bytes]:
    """The files of the chart's top directory that an addition reads, by upper-cased
    name (the last of a name wins, as in Harbor's map)."""
    stream = _Bounded(gzip.GzipFile(fileobj=io.BytesIO(content)), MAX_DECOMPRESSED_BYTES)
    files = {}
    reader = io.BufferedReader(stream)
    with tarfile.open(fileobj=reader, mode="r|", tarinfo=_BoundedTarInfo) as archive:
        for member in archive:
            parts = member.name.replace("\\", "/").split("/")
            if len(parts) != 2 or not member.isfile() or parts[1].upper() not in KEPT:
                continue
            limit = MAX_METADATA_BYTES if parts[1].upper() in METADATA else MAX_FILE_BYTES
            if member.size > limit:
                raise ChartError(f"{member.name} is too big")
            files[parts[1].upper()] = archive.extractfile(member).read()
    if "CHART.YAML" not in files:
        raise ChartError("Chart.yaml file is missing")
    return files


class _BoundedTarInfo(tarfile.TarInfo):
    """Go's archive/tar (Helm's reader) refuses a PAX or GNU long-name header of more than
    MAX_SPECIAL_HEADER_BYTES; Python's tarfile would parse one of up to the decompressed
    bound, record by record (seconds of CPU for a few KB of gzip)."""

    def _proc_member(self, tarfile_):
        if self.type in SPECIAL_HEADERS and self.size > MAX_SPECIAL_HEADER_BYTES:
            raise ChartError("archive/tar: header field too long")
        return super()._proc_member(tarfile_)


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise ChartError("YAML aliases are not read")
        return super().compose_node(parent, index)


def _yaml(content: bytes) -> dict:
    document = yaml.load(content, Loader=_NoAliasLoader)  # a SafeLoader
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ChartError("not a mapping")
    return document


def _dependencies(files: dict[str, bytes]) -> list | None:
    """Chart.yaml's dependencies (v2; None, `null`, when it lists none), else those of
    requirements.yaml (v1; `[]` without the file)."""
    chart = _yaml(files["CHART.YAML"])
    # Helm reads a chart without apiVersion as v1.
    api_version = chart.get("apiVersion") or "v1"
    if api_version == "v2":
        found = chart.get("dependencies")
        return None if found is None else [_dependency(item) for item in _listed(found)]
    if api_version == "v1" and "REQUIREMENTS.YAML" in files:
        requirements = _yaml(files["REQUIREMENTS.YAML"])
        if "dependencies" not in requirements:
            raise ChartError("invalid requirements.yaml, no dependencies found")
        found = requirements["dependencies"]
        return None if found is None else [_dependency(item) for item in _listed(found)]
    return []


def _listed(value) -> list:
    if not isinstance(value, list):
        raise ChartError("dependencies is not a list")
    return value


def _dependency(item) -> dict | None:
    if item is None:
        return None
    if not isinstance(item, dict):
        raise ChartError("a dependency is not a mapping")
    result = {}
    for name, kind, omit_empty in DEPENDENCY_FIELDS:
        value = item.get(name)
        if value is None:
            value = kind()
        if not isinstance(value, kind) or (kind is str and isinstance(value, bool)):
            raise ChartError(f"dependency {name} is not a {kind.__name__}")
        if kind is list and name == "tags" and not all(isinstance(t, str) for t in value):
            raise ChartError("dependency tags are not strings")
        if value or not omit_empty:
            result[name] = value
    return result
