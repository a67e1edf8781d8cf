"""Harbor's Repository, Artifact, Tag, Label and Reference records.

Listings render them from `.values()` rows with one query per related set; the one-object
endpoints go through the same functions, so a list item equals the one-object answer.
"""

from urllib.parse import quote

from rest_framework import serializers

from config.kept import any_id, kept
from config.records import Field
from registry.api.serializers.accessories import ACCESSORY
from registry.api.serializers.fields import (
    ALWAYS,
    HarborTimeField,
    StrictCharField,
    _out,
    harbor_record,
    harbor_time,
    null_when_empty,
    time_or_zero,
)
from registry.distribution.manifest_documents import INDEXES
from registry.models import Artifact, ArtifactLabel, ArtifactReference, Tag
from registry.services import accessories

REPOSITORY = harbor_record(
    "Repository",
    {
        "id": Field(_out(serializers.IntegerField), "pk"),
        "project_id": Field(_out(serializers.IntegerField)),
        "name": Field(_out(serializers.CharField)),
        "description": Field(_out(serializers.CharField, allow_blank=True)),
        "artifact_count": Field(_out(serializers.IntegerField), omit=ALWAYS),
        "pull_count": Field(_out(serializers.IntegerField), omit=ALWAYS),
        # Formatted here, not by the database: SQLite computes a page's selected columns
        # for every matching row before it sorts them (100,000 repositories: 2x slower).
        "creation_time": Field(HarborTimeField(), convert=harbor_time),
        "update_time": Field(HarborTimeField(), convert=harbor_time),
    },
)


def repository_rows(queryset):
    """Rows of the repositories of `queryset` as REPOSITORY reads them."""
    return queryset.values(*REPOSITORY.columns)


class RepositoryUpdateSerializer(serializers.Serializer):
    description = StrictCharField(required=False, allow_blank=True)


TAG = harbor_record(
    "Tag",
    {
        "id": Field(_out(serializers.IntegerField)),
        "repository_id": Field(_out(serializers.IntegerField)),
        "artifact_id": Field(_out(serializers.IntegerField)),
        "name": Field(_out(serializers.CharField)),
        "push_time": Field(HarborTimeField(), convert=harbor_time, omit=ALWAYS),
        "pull_time": Field(HarborTimeField(), convert=time_or_zero, omit=ALWAYS),
        # Tag immutability rules are not modelled: no tag is immutable.
        "immutable": Field(serializers.BooleanField(read_only=True), fixed=False, omit=ALWAYS),
    },
)

LABEL = harbor_record(
    "Label",
    {
        "id": Field(_out(serializers.IntegerField, read_only=True)),
        "name": Field(_out(serializers.CharField, allow_blank=True)),
        "description": Field(_out(serializers.CharField, allow_blank=True)),
        "color": Field(_out(serializers.CharField, allow_blank=True)),
        "scope": Field(_out(serializers.CharField, allow_blank=True)),
        "project_id": Field(_out(serializers.IntegerField, allow_null=True)),
        "creation_time": Field(HarborTimeField(), convert=harbor_time),
        "update_time": Field(HarborTimeField(), convert=harbor_time),
    },
)


def _platform(platform: dict | None) -> dict | None:
    if not platform:
        return None
    renamed = {"os.version": "'os.version'", "os.features": "'os.features'"}
    return dict(sorted((renamed.get(k, k), v) for k, v in platform.items()))


REFERENCE = harbor_record(
    "Reference",
    {
        "parent_id": Field(_out(serializers.IntegerField)),
        "child_id": Field(_out(serializers.IntegerField, allow_null=True)),
        "child_digest": Field(_out(serializers.CharField)),
        "platform": Field(
            serializers.DictField(allow_null=True, read_only=True), convert=_platform
        ),
        "annotations": Field(_out(serializers.DictField, allow_null=True)),
        "urls": Field(
            _out(serializers.ListField, child=serializers.CharField(), allow_null=True),
            convert=null_when_empty,
            omit=ALWAYS,
        ),
    },
)


class AdditionLinkSerializer(serializers.Serializer):
    href = serializers.CharField(required=False)
    absolute = serializers.BooleanField(required=False)


ADDITIONS = {
    Artifact.Type.IMAGE: ("build_history",),
    Artifact.Type.CHART: ("values.yaml", "readme.md", "dependencies"),
}


def artifact_path(project_name: str, repository_name: str, reference: str) -> str:
    short = repository_name.removeprefix(project_name + "/")
    # Harbor's own hrefs double-encode a "/" inside the repository name.
    encoded = quote(quote(short, safe=""), safe="")
    return f"/api/v2.0/projects/{project_name}/repositories/{encoded}/artifacts/{reference}"


# Context of an artifact rendering: `repository` (its full name), `tags`, `labels` and
# `references` ({artifact id: rendered records}; tags and labels None when not asked for).


def _addition_links(row, context) -> dict | None:
    # An index has none: Harbor's index processor lists no addition types.
    is_index = row["manifest_media_type"] in INDEXES
    names = () if is_index else ADDITIONS.get(row["type"], ())
    if not names:
        return None
    repository = context["repository"]
    base = artifact_path(repository.split("/", 1)[0], repository, row["digest"])
    return {name: {"absolute": False, "href": f"{base}/additions/{name}"} for name in names}


def _related(name: str):
    def get(row, context):
        found = context[name]
        return None if found is None else found.get(row["id"])

    return get


ARRAY = {"convert": null_when_empty, "omit": ALWAYS}

ARTIFACT = harbor_record(
    "Artifact",
    {
        "id": Field(_out(serializers.IntegerField)),
        "type": Field(_out(serializers.CharField)),
        "media_type": Field(_out(serializers.CharField)),
        "manifest_media_type": Field(_out(serializers.CharField)),
        "artifact_type": Field(_out(serializers.CharField)),
        "project_id": Field(_out(serializers.IntegerField)),
        "repository_id": Field(_out(serializers.IntegerField)),
        "repository_name": Field(
            serializers.CharField(read_only=True), get=lambda row, context: context["repository"]
        ),
        "digest": Field(_out(serializers.CharField)),
        "size": Field(_out(serializers.IntegerField)),
        "icon": Field(_out(serializers.CharField)),
        "push_time": Field(HarborTimeField(), convert=harbor_time, omit=ALWAYS),
        "pull_time": Field(HarborTimeField(), convert=time_or_zero, omit=ALWAYS),
        "extra_attrs": Field(_out(serializers.DictField, allow_null=True)),
        "annotations": Field(_out(serializers.DictField, allow_null=True)),
        "references": Field(
            REFERENCE.serializer(many=True, allow_null=True, read_only=True),
            get=_related("references"),
            **ARRAY,
        ),
        "tags": Field(
            TAG.serializer(many=True, allow_null=True, read_only=True),
            get=_related("tags"),
            **ARRAY,
        ),
        "labels": Field(
            LABEL.serializer(many=True, allow_null=True, read_only=True),
            get=_related("labels"),
            **ARRAY,
        ),
        "addition_links": Field(
            serializers.DictField(child=AdditionLinkSerializer(), read_only=True),
            get=_addition_links,
        ),
        "accessories": Field(
            ACCESSORY.serializer(many=True, allow_null=True, read_only=True),
            get=_related("accessories"),
            **ARRAY,
        ),
    },
)


def artifact_records(
    rows: list[dict],
    repository_name: str,
    with_tag: bool,
    with_label: bool,
    with_accessory: bool = False,
) -> list[dict]:
    """Rows of ARTIFACT.columns, all of the repository `repository_name`, as Harbor's
    Artifact; tags, labels, references and accessories take one query each."""
    ids = [row["id"] for row in rows]
    context = {
        "repository": repository_name,
        "tags": _tags_by_artifact(ids) if with_tag else None,
        "labels": _labels_by_artifact(ids) if with_label else None,
        "references": _references_by_artifact(ids),
        "accessories": _accessories_by_subject(rows, repository_name) if with_accessory else None,
    }
    return [ARTIFACT.render(row, context) for row in rows]


def _accessories_by_subject(rows: list[dict], repository_name: str) -> dict[int, list[dict]]:
    subjects = {row["digest"]: row["id"] for row in rows}
    found: dict[int, list[dict]] = {}
    if subjects:
        referrers = accessories.of_subjects(rows[0]["repository_id"], list(subjects))
        for referrer in referrers.values(*ACCESSORY.columns, "subject_digest"):
            digest = referrer["subject_digest"]
            subject = {"id": subjects[digest], "digest": digest, "repository": repository_name}
            rendered = ACCESSORY.render(referrer, {"subject": subject})
            found.setdefault(subjects[digest], []).append(rendered)
    return found


def _tags_by_artifact(ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    if ids:
        for tag in kept(("artifact_tags",), _tags).bind(ids=ids):
            found.setdefault(tag["artifact_id"], []).append(TAG.render(tag))
    return found


def _labels_by_artifact(ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    if ids:
        for link in kept(("artifact_labels",), _label_links).bind(ids=ids):
            row = {column: link[path] for path, column in LABEL_PATHS.items()}
            found.setdefault(link["artifact_id"], []).append(LABEL.render(row))
    return found


def _references_by_artifact(ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    if ids:
        for reference in kept(("artifact_references",), _references).bind(ids=ids):
            found.setdefault(reference["parent_id"], []).append(REFERENCE.render(reference))
    return found


# The statements of an artifact page's related rows, the page's ids bound as `ids`.

LABEL_PATHS = {f"label__{column}": column for column in LABEL.columns}


def _tags():
    tags = Tag.objects.filter(artifact_id__in=any_id("ids"))
    return tags.order_by("-push_time", "-pk").values(*TAG.columns)


def _label_links():
    links = ArtifactLabel.objects.filter(artifact_id__in=any_id("ids"))
    return links.order_by("artifact_id", "pk").values("artifact_id", *LABEL_PATHS)


def _references():
    references = ArtifactReference.objects.filter(parent_id__in=any_id("ids"))
    return references.order_by("pk").values(*REFERENCE.columns)
