"""The hot listings' records (projects, repositories, artifacts) built from plain query rows.

A DRF serializer costs a model instance, a field copy and a method call per field and row;
at page_size=100 that was most of a listing's time. These functions write the same JSON
from `.values()` rows and one query per related set, following the serializers' rules
(`go_swagger`, same `always`/`arrays` sets). Tests check that every list row equals the
body the one-object endpoint (rendered by the serializers) gives for it.
"""

from registry import access
from registry.api.serializers import (
    ADDITIONS,
    ZERO_TIME,
    ArtifactSerializer,
    LabelSerializer,
    ProjectSerializer,
    ReferenceSerializer,
    RepositorySerializer,
    TagSerializer,
    allowlist_record,
    artifact_path,
    go_swagger,
    harbor_time,
)
from registry.models import ArtifactLabel, ArtifactReference, ProjectMetadata, Tag

# --- projects -------------------------------------------------------------------------------

PROJECT_COLUMNS = (
    "pk",
    "name",
    "owner_id",
    "registry_id",
    "creation_time",
    "update_time",
    "cve_allowlist_items",
    "cve_allowlist_expires_at",
    "repo_count",
)


def project_records(rows: list[dict], user, detailed: bool) -> list[dict]:
    """Rows of PROJECT_COLUMNS (plus `owner_name` when detailed) as Harbor's Project."""
    ids = [row["pk"] for row in rows]
    roles = access.roles_by_project(user, ids)
    metadata = _metadata_by_project(ids) if detailed else {}
    return [
        _project(row, roles.get(row["pk"], []), metadata.get(row["pk"], {}) if detailed else None)
        for row in rows
    ]


def _metadata_by_project(ids: list[int]) -> dict[int, dict]:
    found: dict[int, dict] = {}
    if ids:
        entries = ProjectMetadata.objects.filter(project_id__in=ids).order_by("name")
        for project_id, name, value in entries.values_list("project_id", "name", "value"):
            found.setdefault(project_id, {})[name] = value
    return found


def _project(row: dict, roles: list[int], metadata: dict | None) -> dict:
    detailed = metadata is not None
    data = {
        "creation_time": harbor_time(row["creation_time"]),
        "current_user_role_id": roles[0] if roles else 0,
        "current_user_role_ids": roles,
        "cve_allowlist": allowlist_record(
            row["pk"], row["cve_allowlist_items"], row["cve_allowlist_expires_at"], detailed
        ),
        "metadata": metadata,
        "name": row["name"],
        "owner_id": row["owner_id"],
        "owner_name": (row.get("owner_name") or "") if detailed else "",
        "project_id": row["pk"],
        "registry_id": row["registry_id"],
        "repo_count": row["repo_count"],
        "update_time": harbor_time(row["update_time"]),
    }
    return go_swagger(data, ProjectSerializer.always, ProjectSerializer.arrays)


# --- repositories ---------------------------------------------------------------------------

REPOSITORY_COLUMNS = (
    "pk",
    "project_id",
    "name",
    "description",
    "artifact_count",
    "pull_count",
    "creation_time",
    "update_time",
)


def repository_record(row: dict) -> dict:
    data = {
        "artifact_count": row["artifact_count"],
        "creation_time": harbor_time(row["creation_time"]),
        "description": row["description"],
        "id": row["pk"],
        "name": row["name"],
        "project_id": row["project_id"],
        "pull_count": row["pull_count"],
        "update_time": harbor_time(row["update_time"]),
    }
    return go_swagger(data, RepositorySerializer.always, RepositorySerializer.arrays)


# --- artifacts ------------------------------------------------------------------------------

ARTIFACT_COLUMNS = (
    "id",
    "type",
    "media_type",
    "manifest_media_type",
    "artifact_type",
    "project_id",
    "repository_id",
    "digest",
    "size",
    "icon",
    "push_time",
    "pull_time",
    "extra_attrs",
    "annotations",
)
TAG_COLUMNS = ("id", "repository_id", "artifact_id", "name", "push_time", "pull_time")
LABEL_COLUMNS = ("id", "name", "description", "color", "scope", "project_id")
LABEL_TIMES = ("creation_time", "update_time")


def artifact_records(
    rows: list[dict], repository_name: str, with_tag: bool, with_label: bool
) -> list[dict]:
    """Rows of ARTIFACT_COLUMNS, all of the repository `repository_name`, as Harbor's
    Artifact; tags, labels and references take one query each."""
    ids = [row["id"] for row in rows]
    tags = _tags_by_artifact(ids) if with_tag and ids else {}
    labels = _labels_by_artifact(ids) if with_label and ids else {}
    references = _references_by_artifact(ids) if ids else {}
    return [
        _artifact(
            row,
            repository_name,
            tags.get(row["id"], []) if with_tag else None,
            labels.get(row["id"], []) if with_label else None,
            references.get(row["id"]),
        )
        for row in rows
    ]


def _tags_by_artifact(ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    tags = Tag.objects.filter(artifact_id__in=ids).order_by("-push_time", "-pk")
    for tag in tags.values(*TAG_COLUMNS):
        record = {
            "artifact_id": tag["artifact_id"],
            "id": tag["id"],
            "immutable": False,
            "name": tag["name"],
            "pull_time": harbor_time(tag["pull_time"]) or ZERO_TIME,
            "push_time": harbor_time(tag["push_time"]),
            "repository_id": tag["repository_id"],
        }
        found.setdefault(tag["artifact_id"], []).append(
            go_swagger(record, TagSerializer.always, TagSerializer.arrays)
        )
    return found


def _labels_by_artifact(ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    fields = [f"label__{name}" for name in LABEL_COLUMNS + LABEL_TIMES]
    links = ArtifactLabel.objects.filter(artifact_id__in=ids).order_by("artifact_id", "pk")
    for link in links.values("artifact_id", *fields):
        record = {name: link[f"label__{name}"] for name in LABEL_COLUMNS}
        for name in LABEL_TIMES:
            record[name] = harbor_time(link[f"label__{name}"])
        found.setdefault(link["artifact_id"], []).append(
            go_swagger(record, LabelSerializer.always, LabelSerializer.arrays)
        )
    return found


def _references_by_artifact(ids: list[int]) -> dict[int, list]:
    found: dict[int, list] = {}
    for reference in ArtifactReference.objects.filter(parent_id__in=ids).order_by("pk"):
        found.setdefault(reference.parent_id, []).append(reference)
    return {
        parent: ReferenceSerializer(references, many=True).data
        for parent, references in found.items()
    }


def _artifact(row, repository_name, tags, labels, references) -> dict:
    names = ADDITIONS.get(row["type"], ())
    links = None
    if names:
        base = artifact_path(repository_name.split("/", 1)[0], repository_name, row["digest"])
        links = {name: {"absolute": False, "href": f"{base}/additions/{name}"} for name in names}
    data = {
        "accessories": None,
        "addition_links": links,
        "annotations": row["annotations"],
        "artifact_type": row["artifact_type"],
        "digest": row["digest"],
        "extra_attrs": row["extra_attrs"],
        "icon": row["icon"],
        "id": row["id"],
        "labels": labels,
        "manifest_media_type": row["manifest_media_type"],
        "media_type": row["media_type"],
        "project_id": row["project_id"],
        "pull_time": harbor_time(row["pull_time"]) or ZERO_TIME,
        "push_time": harbor_time(row["push_time"]),
        "references": references,
        "repository_id": row["repository_id"],
        "repository_name": repository_name,
        "size": row["size"],
        "tags": tags,
        "type": row["type"],
    }
    return go_swagger(data, ArtifactSerializer.always, ArtifactSerializer.arrays)
