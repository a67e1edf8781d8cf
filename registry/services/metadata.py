"""Project metadata: the keys Harbor knows and the stored form of their values."""

from collections.abc import Mapping

from django.db import IntegrityError, transaction

from registry.errors import BadRequest, Conflict
from registry.models import Project, ProjectMetadata
from registry.services.project_lock import lock_project

BOOL_METADATA = (
    "public",
    "enable_content_trust",
    "enable_content_trust_cosign",
    "prevent_vul",
    "auto_scan",
    "auto_sbom_generation",
    "reuse_sys_cve_allowlist",
)
PROXY_METADATA = (
    "proxy_speed_kb",
    "max_upstream_conn",
    "proxy_cache_local_on_not_found",
    "proxy_referrer_api",
    "proxy_cache_filter_pattern",
    "proxy_cache_filter_kind",
)
SEVERITIES = ("none", "low", "medium", "high", "critical")
# strconv.ParseBool, which Harbor uses for boolean project metadata (stricter than the
# swag.ConvertBool of query parameters: no "yes", case-sensitive).
PARSE_BOOL_TRUE = ("1", "t", "T", "TRUE", "true", "True")
PARSE_BOOL_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def _parse_bool(value: str) -> bool | None:
    if value in PARSE_BOOL_TRUE:
        return True
    if value in PARSE_BOOL_FALSE:
        return False
    return None


def normalize_metadata(key: str, value: str, is_proxy: bool = False) -> str:
    """The stored form of a metadata value, or BadRequest (POST/PUT metadata rules)."""
    if key in BOOL_METADATA:
        parsed = _parse_bool(value)
        if parsed is None:
            raise BadRequest(f"invalid value: {value}")
        return "true" if parsed else "false"
    if key == "severity":
        lowered = value.lower()
        lowered = "none" if lowered == "negligible" else lowered
        if lowered not in SEVERITIES:
            raise BadRequest(f"invalid value: {value}")
        return lowered
    if key in PROXY_METADATA and is_proxy:
        return value
    raise BadRequest(f"invalid key: {key}")


@transaction.atomic
def add_metadata(project: Project, values: Mapping[str, str]) -> None:
    if len(values) != 1:
        raise BadRequest("only allow one key/value pair")
    ((key, value),) = values.items()
    stored = normalize_metadata(key, str(value), bool(project.registry_id))
    lock_project(project)
    try:
        with transaction.atomic():
            ProjectMetadata.objects.create(project=project, name=key, value=stored)
    except IntegrityError as exc:
        raise Conflict(f"metadata {key} already exists for project {project.pk}") from exc


@transaction.atomic
def set_metadata(project: Project, key: str, values: Mapping[str, str]) -> None:
    if key not in values:
        raise BadRequest(f"the metadata {key} is not found in the request body")
    stored = normalize_metadata(key, str(values[key]), bool(project.registry_id))
    lock_project(project)
    ProjectMetadata.objects.update_or_create(project=project, name=key, defaults={"value": stored})


def delete_metadata(project: Project, key: str) -> None:
    ProjectMetadata.objects.filter(project=project, name=key).delete()
