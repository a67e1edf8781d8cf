"""What a robot may be granted, and what each stored permission applies to.

A project permission is bound to the project's id, as Harbor stores `/project/{id}`: the
stored record keeps the name (shown on the wire as `namespace`) and the id (`project_id`,
the one compared). Deleting a project removes its permissions from every robot, and a
project created later under the same name is a different project.
"""

from registry.errors import BadRequest, NotFound
from registry.models import Project, Robot

LEVELS = (Robot.Level.SYSTEM, Robot.Level.PROJECT)
ALL = "*"

CRUD = "create read update delete list"


def _policies(actions_by_resource: dict[str, str]) -> frozenset[str]:
    return frozenset(
        f"{resource}:{action}"
        for resource, actions in actions_by_resource.items()
        for action in actions.split()
    )


# What a robot may be granted, per permission kind (Harbor's rbac permission provider).
PROJECT_POLICIES = _policies(
    {
        "log": "list",
        "project": "read delete update",
        "metadata": CRUD,
        "repository": "read update delete list pull push",
        "artifact": "read create list delete",
        "scan": "create read stop",
        "sbom": "create read stop",
        "tag": "create list delete",
        "accessory": "list",
        "artifact-addition": "read",
        "artifact-label": "create delete",
        "scanner": "create read",
        "preheat-policy": CRUD,
        "immutable-tag": "create delete list update",
        "notification-policy": CRUD,
        "tag-retention": CRUD,
        "label": CRUD,
        "quota": "read",
        "robot": "create read list delete",
        "export-cve": "create read",
        "member": CRUD,
    }
)
SYSTEM_POLICIES = _policies(
    {
        "audit-log": "list",
        "preheat-instance": CRUD,
        "project": "list create",
        "replication-policy": CRUD,
        "replication": "read create list",
        "replication-adapter": "list",
        "registry": CRUD,
        "scan-all": "read update stop create",
        "system-volumes": "read",
        "garbage-collection": "read create list update stop",
        "purge-audit": "read create list update stop",
        "jobservice-monitor": "list stop",
        "scanner": CRUD,
        "label": "read create delete update",
        "security-hub": "read list",
        "catalog": "read",
        "quota": "read list update",
        "robot": "create read list delete",
        "user": CRUD,
        "ldap-user": "create list",
        "user-group": CRUD,
    }
)
POLICIES = {"project": PROJECT_POLICIES, "system": SYSTEM_POLICIES}


def scope_of(permission: dict):
    """What a stored permission applies to: the project id it is bound to, `*`, or `/`.
    None for a project permission bound to no project (it grants nothing)."""
    if permission["kind"] != "project" or permission["namespace"] == ALL:
        return permission["namespace"]
    return permission.get("project_id")


def normalised(level: str, permissions) -> list[dict]:
    """Harbor's checks on the level and permissions, and the normalised permissions."""
    if level not in LEVELS:
        raise BadRequest(f"bad request error level input: {level or ''}")
    if not permissions:
        raise BadRequest("bad request empty permission")
    for permission in permissions:
        if permission is None:
            raise BadRequest("bad request empty permission")
        if not permission.get("access") or None in permission["access"]:
            raise BadRequest("bad request empty access")
    # A project robot holds one project's permission.
    if level == Robot.Level.PROJECT and len(permissions) > 1:
        raise BadRequest("bad request permission")
    clean = []
    for permission in permissions:
        kind = permission.get("kind") or ""
        if kind not in POLICIES:
            raise BadRequest(f"bad request permission level: {kind}")
        access = []
        for item in permission["access"]:
            resource, action = item.get("resource") or "", item.get("action") or ""
            if f"{resource}:{action}" not in POLICIES[kind]:
                raise BadRequest(f"bad request permission: {resource}:{action}")
            entry = {"resource": resource, "action": action}
            if item.get("effect"):
                entry["effect"] = item["effect"]
            access.append(entry)
        namespace = permission.get("namespace") or ""
        if kind == "system":
            namespace = "/"
        elif not namespace:
            raise BadRequest("bad request permission: empty namespace")
        clean.append({"kind": kind, "namespace": namespace, "access": access})
    if level == Robot.Level.PROJECT and clean[0]["kind"] != "project":
        raise BadRequest("bad request permission")
    return clean


def bind(clean: list[dict], project: Project | None) -> None:
    """Bind each project permission to its project's id: a project robot's to its project,
    a system robot's to the project its namespace names (404 as Harbor if none does)."""
    named = [p for p in clean if p["kind"] == "project" and p["namespace"] != ALL]
    if project is not None:
        for permission in named:
            permission.update(namespace=project.name, project_id=project.pk)
        return
    names = {p["namespace"] for p in named}
    ids = dict(Project.objects.filter(name__in=names).values_list("name", "pk")) if names else {}
    for permission in named:
        if permission["namespace"] not in ids:
            raise NotFound(f"project {permission['namespace']} not found")
        permission["project_id"] = ids[permission["namespace"]]


def unbind_project(project_id: int) -> None:
    """Drop a deleted project's permissions from the system robots (its own robots go with
    it), as Harbor drops them. Matching is by id, so any left behind by a racing change
    grant nothing."""
    changed = []
    for robot in Robot.objects.filter(level=Robot.Level.SYSTEM).only("pk", "permissions"):
        kept = [p for p in robot.permissions if p.get("project_id") != project_id]
        if len(kept) != len(robot.permissions):
            robot.permissions = kept
            changed.append(robot)
    Robot.objects.bulk_update(changed, ["permissions"])


def within(wanted: list[dict], held: list[dict]) -> bool:
    """Harbor's rule for a robot creating a robot: each wanted permission is one the
    creator holds on that namespace (or on `*`), access item by access item."""
    owned = {(p["kind"], scope_of(p)): p["access"] for p in held}
    for permission in wanted:
        key = (permission["kind"], scope_of(permission))
        access = owned.get(key, owned.get((permission["kind"], ALL)))
        if access is None or any(item not in access for item in permission["access"]):
            return False
    return True
