"""Harbor's authorization decisions for the API: who gets 401, 403 or 404 (harbor.md §6)."""

from urllib.parse import unquote

from django.db import DEFAULT_DB_ALIAS

from config.kept import arg, kept, value
from config.limits import INT64_MAX, INT64_MIN, go_int
from registry import access
from registry.api.validation import CONVERT_BOOL_TRUE
from registry.errors import Forbidden, NotFound, Unauthorized
from registry.models import Project


def require_login(request) -> None:
    if not request.user.is_authenticated:
        raise Unauthorized()


def require_sysadmin(request) -> None:
    """System-level admin endpoints: 401 anonymous, 403 with the username as message."""
    require_login(request)
    if not access.is_sysadmin(request.user):
        raise Forbidden(request.user.get_username())


def require_system_access(request, resource: str, action: str) -> None:
    """A system resource (Harbor's RequireSystemAccess): system admins, and robots whose
    system permissions grant `resource:action`; 401 anonymous, 403 others."""
    require_login(request)
    robot = access.robot_of(request.user)
    if robot is not None and robot.allows("system", "/", resource, action):
        return
    if not access.is_sysadmin(request.user):
        raise Forbidden(request.user.get_username())


def deny(request):
    return Unauthorized() if not request.user.is_authenticated else Forbidden()


def project_lookup(request, name_or_id: str, names_only: bool = False) -> dict:
    """The lookup for a `{project_name_or_id}` segment; X-Is-Resource-Name forces a name."""
    name_or_id = unquote(name_or_id)
    # go-swagger reads the header with swag.ConvertBool.
    is_name_header = request.headers.get("X-Is-Resource-Name", "").lower()
    as_name = names_only or is_name_header in CONVERT_BOOL_TRUE
    if not as_name:
        # As Harbor's strconv.ParseInt: the project named 1_0 is no id, nor is a number
        # past int64 (ParseInt fails: Harbor reads it as a name).
        number = go_int(name_or_id)
        if number is not None and INT64_MIN <= number <= INT64_MAX:
            return {"pk": number}
    return {"name": name_or_id}


def get_project(request, name_or_id: str, action: str, names_only: bool = False) -> Project:
    """The project if the caller may do `action` on it.

    As Harbor, permission is decided before existence: a missing or hidden project gives
    401 to anonymous callers and 403 to signed-in non-admins; only a sysadmin sees 404.
    """
    lookup = project_lookup(request, name_or_id, names_only)
    project = (
        find_project(*next(iter(lookup.items())))
        if "pk" not in lookup or 0 < lookup["pk"] <= INT64_MAX
        else None
    )
    if project is None:
        if access.is_sysadmin(request.user):
            raise NotFound(f"project {next(iter(lookup.values()))} not found")
        raise deny(request)
    if not access.can(request.user, project, action):
        raise deny(request)
    return project


PROJECT_FIELDS = [field.attname for field in Project._meta.concrete_fields]


def find_project(field: str, wanted) -> Project | None:
    """The project whose `field` ("pk" or "name") is `wanted`, annotated `is_public`, by a
    statement kept per process (the lookup ran on every project-scoped request)."""
    statement = kept(("project_by", field), lambda: _project_by(field))
    rows = statement.bind(project=wanted)[0:1]
    if not rows:
        return None
    row = rows[0]
    project = Project.from_db(DEFAULT_DB_ALIAS, PROJECT_FIELDS, row[:-1])
    project.is_public = bool(row[-1])
    return project


def _project_by(field: str):
    marker = value("project") if field == "pk" else arg("project")
    projects = Project.objects.annotate(is_public=access.public_exists())
    return projects.filter(**{field: marker}).values_list(*PROJECT_FIELDS, "is_public")
