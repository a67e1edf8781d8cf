"""The audit log: who did what to which resource of a project, and when.

Recorded (Harbor's event types, `<operation>_<resource_type>`): create/pull/delete of an
artifact, create/delete of a tag, delete of a repository, create/delete of a project, create/update/
delete of a member and of a robot. `disabled_audit_log_event_types` (a comma list such as
`pull_artifact,delete_tag`) turns types off; `skip_audit_log_database` sends records to the
`registry.audit` logger only (the log pipeline then forwards them) instead of the table.
"""

import logging

from django.db.models import QuerySet
from django.utils import timezone

from registry import access, configuration
from registry.models import AuditLog, ProjectMember

logger = logging.getLogger("registry.audit")

ANONYMOUS = "anonymous"
# Who may read a project's logs (Harbor's `log:list`: project admins only in the schema's
# Harbor version; limited guests and outsiders never).
LOG_READERS = access.MATRIX["log:list"]


def enabled(operation: str, resource_type: str, config: dict) -> bool:
    disabled = config["disabled_audit_log_event_types"] or ""
    names = {item.strip().lower() for item in disabled.split(",")}
    return f"{operation}_{resource_type}" not in names


def entry(
    project_id: int,
    operation: str,
    resource_type: str,
    resource: str,
    username: str,
    config: dict | None = None,
) -> AuditLog | None:
    """The record to store for an operation, or None when nothing goes to the table.
    `config`: the configuration values when the caller has read them already."""
    config = config or configuration.values()
    if not enabled(operation, resource_type, config):
        return None
    log = AuditLog(
        project_id=project_id or 0,
        operation=operation,
        resource_type=resource_type,
        resource=resource[:512],
        username=(username or ANONYMOUS)[:255],
        op_time=timezone.now(),
    )
    if config["skip_audit_log_database"]:
        logger.info(
            "audit %s %s %s by %s in project %s",
            log.operation,
            log.resource_type,
            log.resource,
            log.username,
            log.project_id,
        )
        return None
    return log


def record(
    project_id: int, operation: str, resource_type: str, resource: str, username: str
) -> None:
    log = entry(project_id, operation, resource_type, resource, username)
    if log is not None:
        log.save()


def username_of(user) -> str:
    return user.get_username() if user.is_authenticated else ANONYMOUS


def artifact_resource(repository_name: str, digest: str, tag: str | None = None) -> str:
    """Harbor names an artifact `repo:tag` when a tag was used, else `repo@digest`."""
    return f"{repository_name}:{tag}" if tag else f"{repository_name}@{digest}"


# --- reading --------------------------------------------------------------------------------


def of_project(project_id: int) -> QuerySet:
    return AuditLog.objects.filter(project_id=project_id)


def readable(user) -> QuerySet:
    """The records `user` may list: every one for a system admin (and a robot granted
    `audit-log:list`), else those of the projects where the user may read logs."""
    logs = AuditLog.objects.all()
    if access.is_sysadmin(user):
        return logs
    if not user.is_authenticated:
        return logs.none()
    robot = access.robot_of(user)
    if robot is not None:
        if robot.allows("system", "/", "audit-log", "list"):
            return logs
        ids = [i for i in robot.project_ids() if robot.allows("project", i, "log", "list")]
        if "*" in ids:
            return logs.exclude(project_id=0)
        return logs.filter(project_id__in=ids)
    members = ProjectMember.objects.filter(
        access.membership_filter(user), role__in=[int(role) for role in LOG_READERS]
    )
    return logs.filter(project_id__in=members.order_by().values("project_id"))
