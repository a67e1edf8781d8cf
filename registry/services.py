"""Business rules of the registry: explicit arguments, atomic blocks, domain errors.

The OCI distribution API (push, pull, delete) and the management API both go through
these functions, so repositories, artifacts, tags and quota usage stay consistent.
"""

import html
import itertools
import re
from collections.abc import Iterable, Mapping

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from config import account_deletion
from registry import audit, configuration, ldap, robot_permissions
from registry.distribution import usage
from registry.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    PreconditionFailed,
    QuotaExceeded,
)
from registry.models import (
    Artifact,
    ArtifactLabel,
    ArtifactReference,
    AuditLog,
    Label,
    Project,
    ProjectMember,
    ProjectMetadata,
    Repository,
    Role,
    Tag,
    UserGroup,
    UserProfile,
)

User = get_user_model()

PROJECT_NAME_RE = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*$")
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

ICONS = {
    Artifact.Type.IMAGE: "sha256:0048162a053eef4d4ce3fe7518615bef084403614f8bca43b40ae2e762e11e06",
    Artifact.Type.CHART: "sha256:61cf3a178ff0f75bf08a25d96b75cf7355dc197749a9f128ed3ef34b0df05518",
    Artifact.Type.CNAB: "sha256:089bdda265c14d8686111402c8ad629e8177a1ceb7dcd0f7f39b6480f623b3bd",
}
DEFAULT_ICON = "sha256:da834479c923584f4cbcdecc0dac61f32bef1d51e8aae598cf16bd154efab49f"
IMAGE_MEDIA_TYPES = (
    "application/vnd.oci.image.config.v1+json",
    "application/vnd.docker.container.image.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
CHART_MEDIA_TYPES = ("application/vnd.cncf.helm.config.v1+json",)
MAX_STORAGE_LIMIT = 1024**5


# --- projects -----------------------------------------------------------------------------


def validate_project_name(name: str) -> None:
    if not 1 <= len(name) <= 255:
        raise BadRequest(
            f"Project name {name} is illegal in length. (greater than 255 or less than 1)"
        )
    if not PROJECT_NAME_RE.match(name):
        raise BadRequest("project name is not in lower case or contains illegal characters")


def _parse_bool(value: str) -> bool | None:
    if value in PARSE_BOOL_TRUE:
        return True
    if value in PARSE_BOOL_FALSE:
        return False
    return None


def creation_allowed(user) -> bool:
    if getattr(user, "robot", None):
        return False  # a robot owns nothing; projects have a person as owner
    if user.is_superuser:
        return True
    return configuration.get("project_creation_restriction") != "adminonly"


@transaction.atomic
def create_project(
    owner,
    name: str,
    metadata: Mapping[str, str] | None = None,
    public: bool | None = None,
    storage_limit: int | None = None,
    cve_allowlist: Mapping | None = None,
    as_admin: bool = False,
) -> Project:
    """Create a project owned by `owner`, who becomes its projectAdmin.

    Raises Forbidden under `project_creation_restriction=adminonly` for non-admins,
    BadRequest for an illegal name or metadata, Conflict for a name in use.
    """
    if not creation_allowed(owner):
        raise Forbidden("Only system admin can create project")
    validate_project_name(name)
    metadata = _checked_metadata(metadata)
    if metadata.get("retention_id"):
        raise BadRequest("retention_id is not allowed when creating a project")
    metadata.pop("retention_id", None)
    if not metadata.get("public"):
        metadata["public"] = "true" if public else "false"
    if metadata["public"] not in ("true", "false"):
        raise BadRequest(
            f"metadata.public should only be 'true' or 'false', but got: '{metadata['public']}'"
        )
    for key in PROXY_METADATA:
        metadata.pop(key, None)
    limit = _storage_limit(storage_limit, as_admin)
    project = Project(name=name, owner=owner, storage_limit=limit)
    if cve_allowlist:
        _apply_allowlist(project, cve_allowlist)
    try:
        with transaction.atomic():
            project.save()
    except IntegrityError as exc:
        raise Conflict(f"The project named {name} already exists") from exc
    ProjectMetadata.objects.bulk_create(
        ProjectMetadata(project=project, name=key, value=value) for key, value in metadata.items()
    )
    ProjectMember.objects.create(project=project, user=owner, role=Role.PROJECT_ADMIN)
    return project


def _checked_metadata(metadata: Mapping[str, str] | None) -> dict:
    """Metadata as stored: names and values are strings of at most 255 characters."""
    checked = {str(key): str(value) for key, value in (metadata or {}).items()}
    for key, value in checked.items():
        if len(key) > 255 or len(value) > 255:
            raise BadRequest(f"invalid metadata: {key[:64]}")
    return checked


def _storage_limit(requested: int | None, as_admin: bool) -> int:
    default = configuration.get("storage_per_project")
    if not configuration.get("quota_per_project_enable"):
        return -1
    if not as_admin or not requested:
        return default
    if requested != -1 and not 0 < requested <= MAX_STORAGE_LIMIT:
        raise BadRequest(
            f"storage_limit should be -1 or between 1 and {MAX_STORAGE_LIMIT}, got {requested}"
        )
    return requested


def _apply_allowlist(project: Project, allowlist: Mapping) -> None:
    owner_id = allowlist.get("project_id") or 0
    if owner_id and project.pk and owner_id != project.pk:
        raise BadRequest("project_id in cve_allowlist does not match the project")
    items = [item for item in allowlist.get("items") or [] if isinstance(item, Mapping)]
    project.cve_allowlist_items = [{"cve_id": str(item.get("cve_id", ""))} for item in items]
    project.cve_allowlist_expires_at = allowlist.get("expires_at")


@transaction.atomic
def update_project(
    project: Project, metadata: Mapping[str, str] | None, cve_allowlist: Mapping | None
) -> Project:
    """Harbor's PUT: metadata merged (insert or update), the allowlist replaced; nothing else."""
    metadata = _checked_metadata(metadata)
    if "retention_id" in metadata:
        current = project.metadata.filter(name="retention_id").values_list("value", flat=True)
        if metadata["retention_id"] != (current.first() or ""):
            raise BadRequest("the retention_id in the request's payload does not match")
        metadata.pop("retention_id")
    if "public" in metadata and metadata["public"] not in ("true", "false"):
        raise BadRequest(
            f"metadata.public should only be 'true' or 'false', but got: '{metadata['public']}'"
        )
    for key, value in metadata.items():
        ProjectMetadata.objects.update_or_create(
            project=project, name=key, defaults={"value": value}
        )
    if cve_allowlist is not None:
        _apply_allowlist(project, cve_allowlist)
    project.save()
    return project


def project_deletable(project: Project) -> tuple[bool, str]:
    if project.repositories.exists():
        return False, "the project contains repositories, can not be deleted"
    return True, ""


@transaction.atomic
def delete_project(project: Project) -> None:
    """Delete a project with its members, metadata and labels in one transaction."""
    locked = Project.objects.select_for_update().get(pk=project.pk)
    deletable, _ = project_deletable(locked)
    if not deletable:
        raise PreconditionFailed(
            "precondition failed: the project contains repositories, can not be deleted"
        )
    robot_permissions.unbind_project(locked.pk)
    locked.delete()


# --- metadata -----------------------------------------------------------------------------


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
    ProjectMetadata.objects.update_or_create(project=project, name=key, defaults={"value": stored})


def delete_metadata(project: Project, key: str) -> None:
    ProjectMetadata.objects.filter(project=project, name=key).delete()


# --- members ------------------------------------------------------------------------------


def _check_role(role: int) -> None:
    if role not in Role.values:
        raise BadRequest("Failed to update project member, role is not in 1,2,3,4,5")


@transaction.atomic
def add_member(
    project: Project, role: int, user=None, group: UserGroup | None = None
) -> ProjectMember:
    """Add a user or a group (exactly one) to a project; Conflict when already a member."""
    if (user is None) == (group is None):
        raise BadRequest("at least one of member_user or member_group must be provided")
    duplicate = ProjectMember.objects.filter(project=project)
    duplicate = duplicate.filter(user=user) if user is not None else duplicate.filter(group=group)
    if duplicate.exists():
        raise Conflict("The project member specified already exist")
    _check_role(role)
    try:
        with transaction.atomic():
            return ProjectMember.objects.create(project=project, user=user, group=group, role=role)
    except IntegrityError as exc:
        raise Conflict("The project member specified already exist") from exc


def update_member_role(project: Project, member_id: int, role: int) -> None:
    """Harbor answers 200 for a missing member; a role outside 1..5 is refused here."""
    _check_role(role)
    ProjectMember.objects.filter(project=project, pk=member_id).update(
        role=role, update_time=timezone.now()
    )


def remove_member(project: Project, member_id: int) -> None:
    ProjectMember.objects.filter(project=project, pk=member_id).delete()


# --- repositories and artifacts (the push path) --------------------------------------------


def artifact_kind(media_type: str) -> str:
    if media_type in IMAGE_MEDIA_TYPES:
        return Artifact.Type.IMAGE
    if media_type in CHART_MEDIA_TYPES:
        return Artifact.Type.CHART
    if media_type.startswith("application/vnd.cnab"):
        return Artifact.Type.CNAB
    if media_type.startswith("application/vnd.wasm"):
        return Artifact.Type.WASM
    return Artifact.Type.UNKNOWN


def _repository_full_name(project: Project, repository_name: str) -> str:
    if repository_name.startswith(project.name + "/"):
        return repository_name
    return f"{project.name}/{repository_name}"


def storage_usage(project: Project) -> int:
    """Bytes a project holds: see registry.distribution.usage (Harbor's project blobs)."""
    return usage.project_bytes(project.name)


def _refresh_usage(project_id: int) -> None:
    project = Project.objects.get(pk=project_id)
    Project.objects.filter(pk=project_id).update(storage_used=storage_usage(project))


@transaction.atomic
def recount_usage(project: Project) -> None:
    """The project's usage recomputed under its lock (garbage collection removed blobs
    its repositories held)."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    _refresh_usage(project.pk)


def _account(project: Project) -> None:
    """Usage recomputed after a change in the (locked) project: QuotaExceeded when it grew
    past the limit, which rolls the change back."""
    used = storage_usage(project)
    if used > project.storage_used:
        check_quota(project, used - project.storage_used)
    Project.objects.filter(pk=project.pk).update(storage_used=used)


@transaction.atomic
def add_blob(project: Project, digest: str, size: int, store) -> None:
    """A blob entering a repository of the project (upload completed, or mounted).

    Harbor charges it then, once per project: QuotaExceeded when it is new to the project
    and would take it past its limit. `store()` makes it present (bytes and link) while the
    project is locked.
    """
    # Written before anything is read: the row's lock on PostgreSQL, the database's write
    # lock on SQLite (where SELECT ... FOR UPDATE does not exist), so on both backends
    # concurrent charges see each other's usage.
    Project.objects.filter(pk=project.pk).update(storage_used=F("storage_used"))
    project = Project.objects.get(pk=project.pk)
    if not usage.held_by_project(project.name, digest):
        check_quota(project, size)
    store()
    _account(project)


def check_quota(project: Project, extra_bytes: int) -> None:
    """QuotaExceeded when adding `extra_bytes` would pass the project's storage limit."""
    if project.storage_limit == -1 or not configuration.get("quota_per_project_enable"):
        return
    if project.storage_used + extra_bytes > project.storage_limit:
        raise QuotaExceeded(
            f"adding {extra_bytes} bytes of storage resource, which when updated to current "
            f"usage of {project.storage_used} will exceed the configured upper limit of "
            f"{project.storage_limit}."
        )


@transaction.atomic
def record_artifact_push(
    project: Project,
    repository_name: str,
    digest: str,
    media_type: str,
    manifest_media_type: str,
    artifact_type: str = "",
    size: int = 0,
    extra_attrs: Mapping | None = None,
    annotations: Mapping | None = None,
    references: Iterable[Mapping] = (),
    tag: str | None = None,
    kind: str | None = None,
) -> Artifact:
    """Record a pushed manifest: create the repository, the artifact and the tag as needed.

    `repository_name` is the full name (`project/repo`) or the part after the project.
    `references` are the children of an index: dicts with `digest` and optional
    `platform`, `annotations`, `urls`; children pushed earlier are linked by digest.
    Pushing a known digest again only (re)points the tag. Usage counts the blobs linked
    to the project (the manifest's included, linked by the caller in the same transaction);
    the project row is locked so concurrent pushes into one project count one at a time.
    """
    project = Project.objects.select_for_update().get(pk=project.pk)
    now = timezone.now()
    repository, _ = Repository.objects.get_or_create(
        name=_repository_full_name(project, repository_name), defaults={"project": project}
    )
    artifact = Artifact.objects.filter(repository=repository, digest=digest).first()
    if artifact is None:
        kind = kind or artifact_kind(media_type)
        artifact = Artifact.objects.create(
            repository=repository,
            project=project,
            digest=digest,
            type=kind,
            media_type=media_type,
            manifest_media_type=manifest_media_type,
            artifact_type=artifact_type or media_type,
            size=size,
            icon=ICONS.get(kind, DEFAULT_ICON),
            push_time=now,
            extra_attrs=dict(extra_attrs) if extra_attrs is not None else None,
            annotations=dict(annotations) if annotations is not None else None,
        )
        _link_references(artifact, references)
    else:
        Artifact.objects.filter(pk=artifact.pk).update(push_time=now)
        artifact.push_time = now
    if tag:
        Tag.objects.update_or_create(
            repository=repository,
            name=tag,
            defaults={"artifact": artifact, "push_time": now, "pull_time": None},
        )
    Repository.objects.filter(pk=repository.pk).update(update_time=now)
    _account(project)
    return artifact


def _link_references(parent: Artifact, references: Iterable[Mapping]) -> None:
    rows = []
    for reference in references:
        child_digest = reference["digest"]
        rows.append(
            ArtifactReference(
                parent=parent,
                child=Artifact.objects.filter(
                    repository_id=parent.repository_id, digest=child_digest
                ).first(),
                child_digest=child_digest,
                platform=reference.get("platform"),
                annotations=reference.get("annotations"),
                urls=reference.get("urls"),
            )
        )
    ArtifactReference.objects.bulk_create(rows)


def record_pull(
    repository: Repository, artifact: Artifact, tag: str | None = None, username: str = ""
) -> None:
    """A manifest pull: pull times, the repository's pull count (unless disabled) and the
    audit record, written together."""
    config = configuration.values()  # one cache read for every setting used here
    log = audit.entry(
        artifact.project_id,
        "pull",
        "artifact",
        audit.artifact_resource(repository.name, artifact.digest, tag),
        username,
        config,
    )
    if config["pull_count_update_disable"]:
        if log is not None:
            log.save()
        return
    now = timezone.now()
    if connection.vendor == "postgresql":
        # Every manifest GET lands here: one statement (one round trip, no transaction to
        # open and commit) instead of three updates and an insert.
        params = [now, artifact.pk, now, repository.pk, tag, now, repository.pk]
        statement = PULL_STATEMENT
        if log is not None:
            statement = PULL_LOG_STATEMENT
            params = [
                log.project_id,
                log.operation,
                log.resource_type,
                log.resource,
                log.username,
                log.op_time,
                *params,
            ]
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
    else:
        with transaction.atomic():
            Artifact.objects.filter(pk=artifact.pk).update(pull_time=now)
            if tag:
                Tag.objects.filter(repository=repository, name=tag).update(pull_time=now)
            # Counted in the database: concurrent pulls must not overwrite each other's count.
            Repository.objects.filter(pk=repository.pk).update(
                pull_count=F("pull_count") + 1, update_time=now
            )
            if log is not None:
                log.save()
    repository.pull_count += 1


PULL_UPDATES = f"""
artifact AS (UPDATE {Artifact._meta.db_table} SET pull_time = %s WHERE id = %s),
tag AS (UPDATE {Tag._meta.db_table} SET pull_time = %s WHERE repository_id = %s AND name = %s)
UPDATE {Repository._meta.db_table} SET pull_count = pull_count + 1, update_time = %s
WHERE id = %s
"""
PULL_STATEMENT = "WITH" + PULL_UPDATES
PULL_LOG_STATEMENT = f"""WITH audit AS (
INSERT INTO {AuditLog._meta.db_table}
(project_id, operation, resource_type, resource, username, op_time)
VALUES (%s, %s, %s, %s, %s, %s)),{PULL_UPDATES}"""


def delete_tag(repository: Repository, name: str) -> None:
    if not Tag.objects.filter(repository=repository, name=name).delete()[0]:
        raise NotFound(f"tag {name} not found")


def _delete_artifacts(artifacts: list[Artifact]) -> set[str]:
    """Delete artifacts, then their children no one else references or tags; their digests."""
    if not artifacts:
        return set()
    ids = [artifact.pk for artifact in artifacts]
    child_ids = set(
        ArtifactReference.objects.filter(parent_id__in=ids, child__isnull=False).values_list(
            "child_id", flat=True
        )
    )
    Artifact.objects.filter(pk__in=ids).delete()
    orphans = (
        Artifact.objects.filter(pk__in=child_ids - set(ids))
        .annotate(parents=Count("referenced_by"), tag_count=Count("tags"))
        .filter(parents=0, tag_count=0)
    )
    return {artifact.digest for artifact in artifacts} | _delete_artifacts(list(orphans))


@transaction.atomic
def delete_artifact(artifact: Artifact) -> None:
    """Delete an artifact with its tags and labels (and orphaned index children).

    The blobs no artifact left in the repository references are released, as Harbor
    releases a project's blob associations when an artifact goes.
    """
    project_id = artifact.project_id
    Project.objects.select_for_update().filter(pk=project_id).first()
    repository = artifact.repository
    deleted = _delete_artifacts([artifact])
    remaining = set(Artifact.objects.filter(repository=repository).values_list("digest", flat=True))
    usage.release(repository.name, deleted, remaining)
    _refresh_usage(project_id)


@transaction.atomic
def delete_repository(repository: Repository) -> None:
    """Delete a repository, every artifact and tag in it, and release their storage."""
    project_id = repository.project_id
    Project.objects.select_for_update().filter(pk=project_id).first()
    repository.delete()
    _refresh_usage(project_id)


def update_repository_description(repository: Repository, description: str) -> None:
    repository.description = html.escape(description, quote=True)
    repository.save(update_fields=["description", "update_time"])


def find_repository(project: Project, name: str) -> Repository:
    full = _repository_full_name(project, name)
    repository = Repository.objects.filter(name=full, project=project).first()
    if repository is None:
        raise NotFound(f"repository {full} not found")
    return repository


# --- labels -------------------------------------------------------------------------------


@transaction.atomic
def create_label(
    name: str, scope: str, project: Project | None, description: str = "", color: str = ""
) -> Label:
    if not name:
        raise BadRequest("label name is required")
    if scope not in (Label.Scope.GLOBAL, Label.Scope.PROJECT):
        raise BadRequest(f"invalid scope: {scope}")
    if scope == Label.Scope.PROJECT and project is None:
        raise BadRequest("project_id is required for a project label")
    try:
        with transaction.atomic():
            return Label.objects.create(
                name=name,
                scope=scope,
                project=project if scope == Label.Scope.PROJECT else None,
                description=description,
                color=color,
            )
    except IntegrityError as exc:
        raise Conflict(f"label {name} already exists") from exc


def update_label(label: Label, name: str | None, description: str | None, color: str | None):
    if name is not None:
        if not name:
            raise BadRequest("label name is required")
        label.name = name
    if description is not None:
        label.description = description
    if color is not None:
        label.color = color
    try:
        with transaction.atomic():
            label.save()
    except IntegrityError as exc:
        raise Conflict(f"label {label.name} already exists") from exc
    return label


def add_label_to_artifact(artifact: Artifact, label: Label) -> None:
    if label.scope == Label.Scope.PROJECT and label.project_id != artifact.project_id:
        raise BadRequest(f"label {label.pk} does not belong to the project of the artifact")
    try:
        with transaction.atomic():
            ArtifactLabel.objects.create(artifact=artifact, label=label)
    except IntegrityError as exc:
        raise Conflict(f"label {label.pk} is already added to the artifact") from exc


def remove_label_from_artifact(artifact: Artifact, label_id: int) -> None:
    if not ArtifactLabel.objects.filter(artifact=artifact, label_id=label_id).delete()[0]:
        raise NotFound(f"label {label_id} is not added to the artifact {artifact.pk}")


# --- users and groups ---------------------------------------------------------------------

PASSWORD_MESSAGE = (
    "the password or secret must be 8-128, inclusively, characters long with at least 1 "
    "uppercase letter, 1 lowercase letter and 1 number"
)
FORBIDDEN_NAME_CHARS = set(',"~#%$')
# At least one upper-case letter, one lower-case letter and one digit, in any order
# (written without look-aheads so that the published schema can carry the same pattern).
# ([\s\S] rather than "." so that every regex dialect reads the pattern the same way.)
PASSWORD_PATTERN = (
    r"^[\s\S]*(?:"
    + "|".join(
        r"[\s\S]*".join(order) for order in itertools.permutations(("[A-Z]", "[a-z]", "[0-9]"))
    )
    + r")[\s\S]*$"
)
# Spelled-out white space: JSON Schema validators read "\s" differently from Python.
EMAIL_PATTERN = r"^[^@ \t\n\r\f\v]+@[^@ \t\n\r\f\v]+$"


def validate_password(password: str) -> None:
    if not (8 <= len(password) <= 128 and re.fullmatch(PASSWORD_PATTERN, password)):
        raise BadRequest(PASSWORD_MESSAGE)


def _validate_names(username: str | None, realname: str | None, comment: str | None) -> None:
    for field, value in (("username", username), ("realname", realname)):
        if value is None:
            continue
        if not 1 <= len(value) <= 255:
            raise BadRequest(f"{field} with illegal length")
        if FORBIDDEN_NAME_CHARS & set(value):
            raise BadRequest(f"{field} contains illegal characters")
    if comment is not None and len(comment) > 30:
        raise BadRequest("comment with illegal length")


def _validate_email(email: str) -> None:
    if not re.fullmatch(EMAIL_PATTERN, email) or len(email) > 254:
        raise BadRequest("email with illegal format")


@transaction.atomic
def create_user(
    username: str, email: str, password: str, realname: str = "", comment: str = ""
) -> "User":
    _validate_names(username, realname or None, comment)
    _validate_email(email)
    validate_password(password)
    if User.objects.filter(Q(username=username) | Q(email__iexact=email)).exists():
        raise Conflict(f"user {username} or email {email} already exists")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError as exc:
        raise Conflict(f"user {username} or email {email} already exists") from exc
    UserProfile.objects.create(user=user, realname=realname, comment=comment)
    return user


@transaction.atomic
def update_user_profile(user, email: str | None, realname: str | None, comment: str | None):
    _validate_names(None, realname or None, comment)
    if email is not None:
        _validate_email(email)
        if User.objects.filter(email__iexact=email).exclude(pk=user.pk).exists():
            raise Conflict(f"email {email} already exists")
        user.email = email
        user.save(update_fields=["email"])
    profile, _ = UserProfile.objects.get_or_create(user=user)
    if realname is not None:
        profile.realname = realname
    if comment is not None:
        profile.comment = comment
    profile.save()


def change_password(user, new_password: str, old_password: str | None, by_admin: bool) -> None:
    if not by_admin and (old_password is None or not user.check_password(old_password)):
        raise Forbidden("the old password is incorrect")
    validate_password(new_password)
    if user.check_password(new_password):
        raise BadRequest("the new password can not be same with the old one")
    user.set_password(new_password)
    user.save(update_fields=["password"])


def set_sysadmin(user, flag: bool) -> None:
    user.is_superuser = flag
    user.is_staff = flag
    user.save(update_fields=["is_superuser", "is_staff"])


def delete_user(user) -> None:
    """The account goes from all three services, or, while it still owns repositories,
    organizations or stores elsewhere, nothing changes (412, as Harbor refuses to delete
    a project that still holds repositories). Its projects stay, without an owner."""
    try:
        account_deletion.delete_account(user)
    except account_deletion.AccountStillOwns as error:
        raise PreconditionFailed(f"the user can not be deleted: {error}") from error


@transaction.atomic
def create_user_group(group_name: str, group_type: int, ldap_group_dn: str = "") -> UserGroup:
    if not group_name:
        raise BadRequest("group_name is required")
    if group_type not in UserGroup.GroupType.values:
        raise BadRequest(f"invalid group type: {group_type}")
    if group_type == UserGroup.GroupType.LDAP and not ldap_group_dn:
        raise NotFound("LDAP Group DN is not found: DN:")
    duplicate = UserGroup.objects.filter(group_type=group_type)
    duplicate = (
        duplicate.filter(ldap_group_dn=ldap_group_dn)
        if ldap_group_dn
        else duplicate.filter(group_name=group_name, ldap_group_dn="")
    )
    message = f"duplicate user group, group name:{group_name}, group type: {group_type}"
    if duplicate.exists():
        raise Conflict(message)
    try:
        with transaction.atomic():
            return UserGroup.objects.create(
                group_name=group_name, group_type=group_type, ldap_group_dn=ldap_group_dn
            )
    except IntegrityError as exc:
        raise Conflict(message) from exc


def rename_user_group(group: UserGroup, group_name: str) -> None:
    if not group_name:
        raise BadRequest("group_name is required")
    group.group_name = group_name
    group.save(update_fields=["group_name", "update_time"])


# --- configuration --------------------------------------------------------------------------


def auth_mode_editable() -> bool:
    """Harbor lets the auth mode change only while no user but the admin exists."""
    return not User.objects.filter(is_superuser=False).exists()


def update_configuration(changes: Mapping) -> dict:
    """Store a subset of configuration keys after Harbor's validation; 400 on bad values."""
    try:
        typed = configuration.validate(dict(changes))
    except configuration.ConfigurationError as exc:
        raise BadRequest(str(exc)) from exc
    mode = typed.get("auth_mode")
    if mode is not None and mode != configuration.get("auth_mode") and not auth_mode_editable():
        raise BadRequest(
            "the auth mode cannot be modified as new users have been inserted into database"
        )
    before = configuration.values()
    if (
        typed.get("ldap_url", before["ldap_url"]) != before["ldap_url"]
        and "ldap_search_password" not in typed
    ):
        # The bind password was given for one directory: never send it to another.
        typed["ldap_search_password"] = ""
    stored = configuration.update(typed)
    if any(before[key] != stored[key] for key in ldap.SIGN_IN_KEYS & stored.keys()):
        # Who may sign in through the directory changed: remembered sign-ins are dropped.
        ldap.forget_directory_sign_ins()
    return stored
