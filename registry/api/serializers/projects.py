"""Harbor's Project record and the project and member request bodies."""

from rest_framework import serializers

from config.kept import any_id, kept
from config.limits import INT64_MAX
from config.records import Field
from registry import access
from registry.api.serializers.fields import (
    ALWAYS,
    ZERO_TIME,
    HarborSerializer,
    HarborTimeField,
    ProjectMetadataField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    _out,
    documented,
    documented_string,
    harbor_record,
    null_when_empty,
)
from registry.models import ProjectMetadata, Role


class CVEAllowlistItemSerializer(serializers.Serializer):
    cve_id = serializers.CharField(required=False)


class CVEAllowlistSerializer(serializers.Serializer):
    id = serializers.IntegerField(required=False)
    project_id = serializers.IntegerField(required=False)
    expires_at = serializers.IntegerField(required=False, allow_null=True)
    items = CVEAllowlistItemSerializer(many=True, required=False, allow_null=True)
    creation_time = serializers.DateTimeField(required=False, read_only=True)
    update_time = serializers.DateTimeField(required=False, read_only=True)


def allowlist_record(project_id: int, items, expires_at, detailed: bool) -> dict:
    if not detailed:
        return {"creation_time": ZERO_TIME, "items": None, "update_time": ZERO_TIME}
    data = {
        "creation_time": ZERO_TIME,
        "id": project_id,
        "items": list(items or []),
        "project_id": project_id,
        "update_time": ZERO_TIME,
    }
    if expires_at is not None:
        data["expires_at"] = expires_at
    return dict(sorted(data.items()))


# Context of a project rendering: `roles` {project id: the caller's roles}, `metadata`
# {project id: {name: value}} or None (not detailed), `owner` and `allowlist` (whether
# owner_name and the allowlist's contents are shown).


def _roles(row, context) -> list[int]:
    return context["roles"].get(row["pk"], [])


def _owner_name(row, context) -> str:
    return (row.get("owner_name") or "") if context["owner"] else ""


def _metadata(row, context) -> dict | None:
    metadata = context["metadata"]
    return None if metadata is None else metadata.get(row["pk"], {})


def _allowlist(row, context) -> dict:
    return allowlist_record(
        row["pk"], row["cve_allowlist_items"], row["cve_allowlist_expires_at"], context["allowlist"]
    )


PROJECT = harbor_record(
    "Project",
    {
        "project_id": Field(_out(serializers.IntegerField), "pk"),
        "owner_id": Field(_out(serializers.IntegerField)),
        "name": Field(_out(serializers.CharField)),
        "registry_id": Field(_out(serializers.IntegerField, allow_null=True)),
        # Formatted by the database (project_rows annotates them).
        "creation_time": Field(HarborTimeField(), "creation_time_text", omit=ALWAYS),
        "update_time": Field(HarborTimeField(), "update_time_text", omit=ALWAYS),
        "owner_name": Field(serializers.CharField(read_only=True), get=_owner_name),
        "current_user_role_id": Field(
            serializers.IntegerField(read_only=True),
            get=lambda row, context: (_roles(row, context) or [0])[0],
        ),
        "current_user_role_ids": Field(
            serializers.ListField(
                child=serializers.IntegerField(), allow_null=True, read_only=True
            ),
            get=_roles,
            convert=null_when_empty,
            omit=ALWAYS,
        ),
        "repo_count": Field(_out(serializers.IntegerField), omit=ALWAYS),
        "metadata": Field(
            serializers.DictField(child=serializers.CharField(), read_only=True), get=_metadata
        ),
        "cve_allowlist": Field(CVEAllowlistSerializer(read_only=True), get=_allowlist),
    },
    extra_columns=("cve_allowlist_items", "cve_allowlist_expires_at"),
)


def project_records(
    rows: list[dict], user, detailed: bool, owner: bool = True, allowlist: bool = True
) -> list[dict]:
    """Rows of PROJECT.columns (plus `owner_name` when detailed and `owner`) as Harbor's
    Project; `owner` and `allowlist` apply when detailed (the search shows neither)."""
    ids = [row["pk"] for row in rows]
    context = {
        "roles": access.roles_by_project(user, ids),
        "metadata": _metadata_by_project(ids) if detailed else None,
        "owner": detailed and owner,
        "allowlist": detailed and allowlist,
    }
    return [PROJECT.render(row, context) for row in rows]


def _metadata_by_project(ids: list[int]) -> dict[int, dict]:
    found: dict[int, dict] = {}
    if ids:
        for project_id, name, value in kept(("project_metadata",), _metadata).bind(ids=ids):
            found.setdefault(project_id, {})[name] = value
    return found


def _metadata():
    """Metadata entries of the projects whose ids are bound as `ids`, each project's by
    name (ordered by project first, the (project, name) index serves it: ordered by name
    alone, SQLite scanned every project's entries)."""
    entries = ProjectMetadata.objects.filter(project_id__in=any_id("ids"))
    return entries.order_by("project_id", "name").values_list("project_id", "name", "value")


class CVEAllowlistItemReqSerializer(serializers.Serializer):
    cve_id = StrictCharField(required=False, allow_blank=True)


class CVEAllowlistReqSerializer(serializers.Serializer):
    id = StrictIntegerField(required=False)
    project_id = StrictIntegerField(required=False, min_value=0, max_value=INT64_MAX)
    expires_at = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=INT64_MAX
    )
    items = CVEAllowlistItemReqSerializer(many=True, required=False, allow_null=True)


class ProjectReqSerializer(serializers.Serializer):
    project_name = documented_string(
        minLength=1, maxLength=255, pattern=r"^[a-z0-9]+(?:[._-][a-z0-9]+)*$"
    )
    public = StrictBooleanField(required=False, allow_null=True)
    metadata = ProjectMetadataField(required=False)
    cve_allowlist = CVEAllowlistReqSerializer(required=False, allow_null=True)
    storage_limit = documented(
        StrictIntegerField(required=False, allow_null=True),
        type="integer",
        format="int64",
        minimum=-1,
        maximum=1024**5,
        nullable=True,
    )
    registry_id = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=0)


class ProjectUpdateSerializer(ProjectReqSerializer):
    """PUT body: the same record, where only metadata and cve_allowlist take effect."""

    project_name = StrictCharField(required=False, allow_blank=True, max_length=255)


class ProjectDeletableSerializer(HarborSerializer):
    deletable = _out(serializers.BooleanField)
    message = _out(serializers.CharField)


class ResourceListSerializer(serializers.Serializer):
    storage = serializers.IntegerField(required=False)


class QuotaSerializer(serializers.Serializer):
    hard = ResourceListSerializer(required=False)
    used = ResourceListSerializer(required=False)


class ProjectSummarySerializer(HarborSerializer):
    always = frozenset({"repo_count"})

    repo_count = _out(serializers.IntegerField)
    project_admin_count = _out(serializers.IntegerField)
    maintainer_count = _out(serializers.IntegerField)
    developer_count = _out(serializers.IntegerField)
    guest_count = _out(serializers.IntegerField)
    limited_guest_count = _out(serializers.IntegerField)
    quota = QuotaSerializer(required=False, allow_null=True)


# --- members --------------------------------------------------------------------------------


# A member row holds the user's or the group's columns, the other side's being None.
MEMBER = harbor_record(
    "ProjectMemberEntity",
    {
        "id": Field(_out(serializers.IntegerField), "pk"),
        "project_id": Field(_out(serializers.IntegerField)),
        "entity_name": Field(
            serializers.CharField(read_only=True),
            get=lambda row, context: row["user__username"] or row["group__group_name"],
        ),
        "role_name": Field(
            serializers.CharField(read_only=True), "role", convert=lambda role: Role(role).label
        ),
        "role_id": Field(_out(serializers.IntegerField), "role"),
        "entity_id": Field(
            serializers.IntegerField(read_only=True),
            get=lambda row, context: row["user_id"] or row["group_id"],
        ),
        "entity_type": Field(
            _out(serializers.CharField), get=lambda row, context: "u" if row["user_id"] else "g"
        ),
    },
    extra_columns=("user_id", "group_id", "user__username", "group__group_name"),
)


class UserEntitySerializer(serializers.Serializer):
    user_id = StrictIntegerField(required=False, min_value=0, max_value=INT64_MAX)
    username = StrictCharField(required=False, allow_blank=True)


USER_GROUP = harbor_record(
    "UserGroup",
    {
        "id": Field(_out(serializers.IntegerField)),
        "group_name": Field(_out(serializers.CharField, allow_blank=True)),
        "group_type": Field(_out(serializers.IntegerField)),
        "ldap_group_dn": Field(_out(serializers.CharField, allow_blank=True)),
    },
)

USER_GROUP_SEARCH_ITEM = harbor_record(
    "UserGroupSearchItem",
    {
        "id": Field(_out(serializers.IntegerField)),
        "group_name": Field(_out(serializers.CharField)),
        "group_type": Field(_out(serializers.IntegerField)),
    },
)


class MemberGroupSerializer(serializers.Serializer):
    id = StrictIntegerField(required=False, min_value=0, max_value=INT64_MAX)
    group_name = StrictCharField(required=False, allow_blank=True)
    group_type = StrictIntegerField(required=False, min_value=0, max_value=3)
    ldap_group_dn = StrictCharField(required=False, allow_blank=True)


class ProjectMemberSerializer(serializers.Serializer):
    role_id = documented(StrictIntegerField(required=False), type="integer", minimum=1, maximum=5)
    member_user = UserEntitySerializer(required=False, allow_null=True)
    member_group = MemberGroupSerializer(required=False, allow_null=True)


class RoleRequestSerializer(serializers.Serializer):
    role_id = documented(StrictIntegerField(), type="integer", minimum=1, maximum=5)
