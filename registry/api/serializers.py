"""Harbor's wire records. The only module that knows the JSON field names.

Output follows go-swagger's rules (harbor.md §1): keys in alphabetical order, zero
scalars omitted unless listed in `always`, arrays always present (null when unset),
maps omitted when nil, times in UTC with milliseconds.
"""

from datetime import UTC
from urllib.parse import quote

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.limits import INT64_MAX
from registry import access
from registry.models import Artifact, Role
from registry.services.users import EMAIL_PATTERN, PASSWORD_PATTERN

ZERO_TIME = "0001-01-01T00:00:00.000Z"
OMITTED = (None, "", 0, False)


def harbor_time(value) -> str | None:
    if value is None:
        return None
    # isoformat truncates to milliseconds as Harbor does, and is faster than strftime.
    return value.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


class HarborTimeField(serializers.Field):
    def __init__(self, zero_when_missing: bool = False, **kwargs):
        self.zero_when_missing = zero_when_missing
        kwargs.setdefault("required", False)
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        return ZERO_TIME if value is None and self.zero_when_missing else value

    def to_representation(self, value):
        return value if isinstance(value, str) else harbor_time(value)


extend_schema_field(OpenApiTypes.DATETIME)(HarborTimeField)


class HarborSerializer(serializers.Serializer):
    """Output serializer with go-swagger's omit-empty and key order."""

    # Scalars always emitted even when zero; arrays listed in `arrays` are always emitted.
    always: frozenset = frozenset()
    arrays: frozenset = frozenset()

    def to_representation(self, instance):
        return go_swagger(super().to_representation(instance), self.always, self.arrays)


def go_swagger(data: dict, always: frozenset = frozenset(), arrays: frozenset = frozenset()):
    """A record as go-swagger writes it: keys sorted, zero scalars dropped unless in
    `always`, empty arrays in `arrays` written as null."""
    out = {}
    for key in sorted(data):
        value = data[key]
        if key in arrays:
            out[key] = value if value else None
        elif key in always or value not in OMITTED:
            out[key] = value
    return out


def _out(field_class, **kwargs):
    """An output field: never required, so omitted keys still match the published schema."""
    kwargs.setdefault("required", False)
    return field_class(**kwargs)


# --- strict request fields (go-swagger rejects a value of the wrong JSON type) ---------------


class StrictCharField(serializers.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data):
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StringMapField(serializers.DictField):
    """A JSON object whose values are all strings."""

    child = StrictCharField(allow_blank=True)


@extend_schema_field(
    {
        "type": "object",
        "properties": {"public": {"type": "string", "enum": ["true", "false"]}},
        "additionalProperties": {"type": "string", "maxLength": 255},
    }
)
class ProjectMetadataField(StringMapField):
    """Project metadata in a request: `public`, when given, is "true" or "false"."""


NAME_PATTERN = r'^[^,"~#%$]+$'


def documented(field, **schema):
    """A field whose published schema states rules the service checks itself (Harbor
    answers them with 400 and its own message, not with a 422 validation failure).

    Serializers deep-copy their fields from the constructor arguments, so the schema
    goes on a subclass rather than on the instance."""
    annotated = extend_schema_field(schema)(type(type(field).__name__, (type(field),), {}))
    return annotated(*field._args, **field._kwargs)


class PlainStringField(serializers.Field):
    """Any JSON string, empty included; its rules are the service's (see `documented`)."""

    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


def documented_string(required: bool = True, write_only: bool = False, **schema):
    return documented(
        PlainStringField(required=required, write_only=write_only), type="string", **schema
    )


# --- errors ---------------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class ErrorsSerializer(serializers.Serializer):
    errors = ErrorSerializer(many=True)


# --- projects -------------------------------------------------------------------------------


class CVEAllowlistItemSerializer(serializers.Serializer):
    cve_id = serializers.CharField(required=False)


class CVEAllowlistSerializer(serializers.Serializer):
    id = serializers.IntegerField(required=False)
    project_id = serializers.IntegerField(required=False)
    expires_at = serializers.IntegerField(required=False, allow_null=True)
    items = CVEAllowlistItemSerializer(many=True, required=False, allow_null=True)
    creation_time = serializers.DateTimeField(required=False, read_only=True)
    update_time = serializers.DateTimeField(required=False, read_only=True)


def allowlist_of(project, detailed: bool) -> dict:
    return allowlist_record(
        project.pk, project.cve_allowlist_items, project.cve_allowlist_expires_at, detailed
    )


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


class ProjectSerializer(HarborSerializer):
    always = frozenset({"update_time", "repo_count", "creation_time"})
    arrays = frozenset({"current_user_role_ids"})

    project_id = _out(serializers.IntegerField, source="pk")
    owner_id = _out(serializers.IntegerField)
    name = _out(serializers.CharField)
    registry_id = _out(serializers.IntegerField, allow_null=True)
    creation_time = HarborTimeField()
    update_time = HarborTimeField()
    owner_name = serializers.SerializerMethodField()
    current_user_role_id = serializers.SerializerMethodField()
    current_user_role_ids = serializers.SerializerMethodField()
    repo_count = _out(serializers.IntegerField)
    metadata = serializers.SerializerMethodField()
    cve_allowlist = serializers.SerializerMethodField()

    @property
    def detailed(self) -> bool:
        return self.context.get("with_detail", True)

    def _roles(self, project) -> list[int]:
        return access.roles_of(self.context["request"].user, project)

    def get_owner_name(self, project) -> str:
        if not self.detailed or not self.context.get("with_owner", True) or not project.owner:
            return ""
        return project.owner.username

    def get_current_user_role_id(self, project) -> int:
        roles = self._roles(project)
        return roles[0] if roles else 0

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), allow_null=True))
    def get_current_user_role_ids(self, project) -> list[int] | None:
        return self._roles(project) or None

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_metadata(self, project) -> dict | None:
        if not self.detailed:
            return None
        return {entry.name: entry.value for entry in project.metadata.all()}

    @extend_schema_field(CVEAllowlistSerializer)
    def get_cve_allowlist(self, project) -> dict:
        return allowlist_of(project, self.detailed and self.context.get("with_allowlist", True))


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


class ProjectMemberEntitySerializer(HarborSerializer):
    id = _out(serializers.IntegerField, source="pk")
    project_id = _out(serializers.IntegerField)
    entity_name = serializers.SerializerMethodField()
    role_name = serializers.SerializerMethodField()
    role_id = _out(serializers.IntegerField, source="role")
    entity_id = serializers.SerializerMethodField()
    entity_type = _out(serializers.CharField)

    def get_entity_name(self, member) -> str:
        return member.user.username if member.user_id else member.group.group_name

    def get_role_name(self, member) -> str:
        return Role(member.role).label

    def get_entity_id(self, member) -> int:
        return member.user_id or member.group_id


class UserEntitySerializer(serializers.Serializer):
    user_id = StrictIntegerField(required=False, min_value=0, max_value=INT64_MAX)
    username = StrictCharField(required=False, allow_blank=True)


class UserGroupSerializer(HarborSerializer):
    id = _out(serializers.IntegerField)
    group_name = _out(serializers.CharField, allow_blank=True)
    group_type = _out(serializers.IntegerField)
    ldap_group_dn = _out(serializers.CharField, allow_blank=True)


class UserGroupSearchItemSerializer(HarborSerializer):
    id = _out(serializers.IntegerField)
    group_name = _out(serializers.CharField)
    group_type = _out(serializers.IntegerField)


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


# --- repositories and artifacts -------------------------------------------------------------


class RepositorySerializer(HarborSerializer):
    always = frozenset({"artifact_count", "pull_count"})

    id = _out(serializers.IntegerField, source="pk")
    project_id = _out(serializers.IntegerField)
    name = _out(serializers.CharField)
    description = _out(serializers.CharField, allow_blank=True)
    artifact_count = _out(serializers.IntegerField)
    pull_count = _out(serializers.IntegerField)
    creation_time = HarborTimeField()
    update_time = HarborTimeField()


class RepositoryUpdateSerializer(serializers.Serializer):
    description = StrictCharField(required=False, allow_blank=True)


class TagSerializer(HarborSerializer):
    always = frozenset({"immutable", "pull_time", "push_time"})

    id = _out(serializers.IntegerField)
    repository_id = _out(serializers.IntegerField)
    artifact_id = _out(serializers.IntegerField)
    name = _out(serializers.CharField)
    push_time = HarborTimeField()
    pull_time = HarborTimeField(zero_when_missing=True)
    immutable = serializers.SerializerMethodField()

    def get_immutable(self, tag) -> bool:
        return False


class LabelSerializer(HarborSerializer):
    id = _out(serializers.IntegerField, read_only=True)
    name = _out(serializers.CharField, allow_blank=True)
    description = _out(serializers.CharField, allow_blank=True)
    color = _out(serializers.CharField, allow_blank=True)
    scope = _out(serializers.CharField, allow_blank=True)
    project_id = _out(serializers.IntegerField, allow_null=True)
    creation_time = HarborTimeField()
    update_time = HarborTimeField()


class ReferenceSerializer(HarborSerializer):
    arrays = frozenset({"urls"})

    parent_id = _out(serializers.IntegerField)
    child_id = _out(serializers.IntegerField, allow_null=True)
    child_digest = _out(serializers.CharField)
    platform = serializers.SerializerMethodField()
    annotations = _out(serializers.DictField, allow_null=True)
    urls = _out(serializers.ListField, child=serializers.CharField(), allow_null=True)

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_platform(self, reference) -> dict | None:
        platform = reference.platform
        if not platform:
            return None
        renamed = {"os.version": "'os.version'", "os.features": "'os.features'"}
        return dict(sorted((renamed.get(k, k), v) for k, v in platform.items()))


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


class ArtifactSerializer(HarborSerializer):
    always = frozenset({"push_time", "pull_time"})
    arrays = frozenset({"references", "tags", "labels", "accessories"})

    id = _out(serializers.IntegerField)
    type = _out(serializers.CharField)
    media_type = _out(serializers.CharField)
    manifest_media_type = _out(serializers.CharField)
    artifact_type = _out(serializers.CharField)
    project_id = _out(serializers.IntegerField)
    repository_id = _out(serializers.IntegerField)
    repository_name = serializers.SerializerMethodField()
    digest = _out(serializers.CharField)
    size = _out(serializers.IntegerField)
    icon = _out(serializers.CharField)
    push_time = HarborTimeField()
    pull_time = HarborTimeField(zero_when_missing=True)
    extra_attrs = _out(serializers.DictField, allow_null=True)
    annotations = _out(serializers.DictField, allow_null=True)
    references = serializers.SerializerMethodField()
    tags = serializers.SerializerMethodField()
    labels = serializers.SerializerMethodField()
    addition_links = serializers.SerializerMethodField()
    accessories = serializers.SerializerMethodField()

    def get_repository_name(self, artifact) -> str:
        return artifact.repository.name

    @extend_schema_field(ReferenceSerializer(many=True, allow_null=True))
    def get_references(self, artifact):
        references = artifact.references.all()
        return ReferenceSerializer(references, many=True).data if references else None

    @extend_schema_field(TagSerializer(many=True, allow_null=True))
    def get_tags(self, artifact):
        if not self.context.get("with_tag", True):
            return None
        return TagSerializer(artifact.tags.all(), many=True).data

    @extend_schema_field(LabelSerializer(many=True, allow_null=True))
    def get_labels(self, artifact):
        if not self.context.get("with_label", False):
            return None
        return LabelSerializer([link.label for link in artifact.label_links.all()], many=True).data

    @extend_schema_field(serializers.DictField(child=AdditionLinkSerializer()))
    def get_addition_links(self, artifact) -> dict | None:
        names = ADDITIONS.get(artifact.type, ())
        if not names:
            return None
        repository = artifact.repository.name
        base = artifact_path(repository.split("/", 1)[0], repository, artifact.digest)
        return {name: {"absolute": False, "href": f"{base}/additions/{name}"} for name in names}

    @extend_schema_field(serializers.ListField(child=serializers.DictField(), allow_null=True))
    def get_accessories(self, artifact) -> None:
        return None


# --- users ----------------------------------------------------------------------------------


class UserRespSerializer(HarborSerializer):
    always = frozenset({"sysadmin_flag", "admin_role_in_auth"})

    user_id = _out(serializers.IntegerField, source="pk")
    username = _out(serializers.CharField)
    email = _out(serializers.CharField)
    realname = serializers.SerializerMethodField()
    comment = serializers.SerializerMethodField()
    sysadmin_flag = _out(serializers.BooleanField, source="is_superuser")
    admin_role_in_auth = serializers.SerializerMethodField()
    creation_time = HarborTimeField(source="date_joined")
    update_time = HarborTimeField(source="date_joined")

    @staticmethod
    def _profile(user):
        return getattr(user, "harbor_profile", None)

    def get_realname(self, user) -> str:
        profile = self._profile(user)
        return profile.realname if profile else ""

    def get_comment(self, user) -> str:
        profile = self._profile(user)
        return profile.comment if profile else ""

    def get_admin_role_in_auth(self, user) -> bool:
        profile = self._profile(user)
        return bool(profile and profile.admin_role_in_auth)


class UserSearchRespItemSerializer(HarborSerializer):
    user_id = _out(serializers.IntegerField, source="pk")
    username = _out(serializers.CharField)


class UserCreationReqSerializer(serializers.Serializer):
    username = documented_string(minLength=1, maxLength=255, pattern=NAME_PATTERN)
    email = documented_string(maxLength=254, pattern=EMAIL_PATTERN)
    # Optional: an empty real name is no real name.
    realname = documented_string(required=False, maxLength=255, pattern=r'^[^,"~#%$]*$')
    comment = documented_string(required=False, maxLength=30)
    password = documented_string(
        write_only=True, minLength=8, maxLength=128, pattern=PASSWORD_PATTERN
    )


class UserProfileSerializer(serializers.Serializer):
    email = documented_string(required=False, maxLength=254, pattern=EMAIL_PATTERN)
    realname = documented_string(required=False, maxLength=255, pattern=r'^[^,"~#%$]*$')
    comment = documented_string(required=False, maxLength=30)


class PasswordReqSerializer(serializers.Serializer):
    old_password = StrictCharField(required=False, allow_blank=True)
    new_password = documented_string(minLength=8, maxLength=128, pattern=PASSWORD_PATTERN)


class PermissionSerializer(HarborSerializer):
    action = _out(serializers.CharField)
    resource = _out(serializers.CharField)


class UserSysAdminFlagSerializer(serializers.Serializer):
    sysadmin_flag = StrictBooleanField(required=False)


# --- search, statistics, configurations -----------------------------------------------------


class SearchRepositorySerializer(HarborSerializer):
    project_id = _out(serializers.IntegerField)
    project_name = _out(serializers.CharField, source="project.name")
    project_public = _out(serializers.BooleanField)
    repository_name = _out(serializers.CharField, source="name")
    pull_count = _out(serializers.IntegerField)
    artifact_count = _out(serializers.IntegerField)


class SearchSerializer(serializers.Serializer):
    project = ProjectSerializer(many=True)
    repository = SearchRepositorySerializer(many=True)


class StatisticSerializer(serializers.Serializer):
    private_project_count = serializers.IntegerField()
    private_repo_count = serializers.IntegerField()
    public_project_count = serializers.IntegerField()
    public_repo_count = serializers.IntegerField()
    total_project_count = serializers.IntegerField()
    total_repo_count = serializers.IntegerField()
    total_storage_consumption = serializers.IntegerField()


def config_items(values: dict, editable: dict) -> dict:
    """{key: {"editable": bool, "value": v}} in key order, as GET /configurations sends."""
    return {
        key: {"editable": editable.get(key, True), "value": values[key]} for key in sorted(values)
    }


class MetadataMapSerializer(serializers.Serializer):
    """A metadata body: a flat map whose values are strings."""

    def to_internal_value(self, data):
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise serializers.ValidationError({"body": ["values must be strings"]})
        return data


class UserGroupReqSerializer(serializers.Serializer):
    id = StrictIntegerField(required=False)
    group_name = StrictCharField(min_length=1, max_length=255)
    group_type = serializers.ChoiceField(choices=[1, 2, 3], required=False)
    ldap_group_dn = StrictCharField(required=False, allow_blank=True, max_length=512)


class UserGroupUpdateSerializer(serializers.Serializer):
    group_name = StrictCharField(min_length=1, max_length=255)


class LabelReqSerializer(serializers.Serializer):
    name = StrictCharField(required=False, min_length=1, max_length=128)
    description = StrictCharField(required=False, allow_blank=True)
    color = StrictCharField(required=False, allow_blank=True, max_length=16)
    scope = serializers.ChoiceField(choices=["g", "p"], required=False)
    project_id = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=INT64_MAX
    )


class LabelCreateSerializer(LabelReqSerializer):
    name = StrictCharField(min_length=1, max_length=128)
    scope = serializers.ChoiceField(choices=["g", "p"])


class LabelIdSerializer(serializers.Serializer):
    id = StrictIntegerField(min_value=1, max_value=INT64_MAX)
