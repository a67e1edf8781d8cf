"""Who may see and do what: project visibility and Harbor's role matrix (harbor.md §6)."""

from django.db.models import Exists, OuterRef, Q, QuerySet

from config.kept import any_id, kept, value
from registry.ldap import signin
from registry.models import Project, ProjectMember, ProjectMetadata, Role, UserGroup

# Highest role first, as Harbor picks `current_user_role_id`.
ROLE_RANK = [Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER, Role.GUEST, Role.LIMITED_GUEST]

ALL_ROLES = frozenset(ROLE_RANK)
READERS = ALL_ROLES
MEMBER_READERS = frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER, Role.GUEST})

# project-level resource:action -> roles allowed (sysadmin may do everything).
MATRIX = {
    "project:read": READERS,
    "project:update": frozenset({Role.PROJECT_ADMIN}),
    "project:delete": frozenset({Role.PROJECT_ADMIN}),
    "member:create": frozenset({Role.PROJECT_ADMIN}),
    "member:update": frozenset({Role.PROJECT_ADMIN}),
    "member:delete": frozenset({Role.PROJECT_ADMIN}),
    "member:read": MEMBER_READERS,
    "member:list": MEMBER_READERS,
    "metadata:create": frozenset({Role.PROJECT_ADMIN}),
    "metadata:update": frozenset({Role.PROJECT_ADMIN}),
    "metadata:delete": frozenset({Role.PROJECT_ADMIN}),
    "metadata:read": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "metadata:list": frozenset(),
    "quota:read": READERS,
    "repository:list": READERS,
    "repository:read": READERS,
    "repository:update": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER}),
    "repository:delete": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "artifact:list": READERS,
    "artifact:read": READERS,
    "artifact:push": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER}),
    "artifact:delete": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "artifact-addition:read": READERS,
    # Developers may tag an artifact but not untag one (Harbor's developer role).
    "tag:list": READERS,
    "tag:create": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER}),
    "tag:delete": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "accessory:list": READERS,
    "label:create": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "label:update": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "label:delete": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER}),
    "label:read": READERS,
    "label:list": READERS,
    "artifact-label:create": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER}),
    "artifact-label:delete": frozenset({Role.PROJECT_ADMIN, Role.MAINTAINER, Role.DEVELOPER}),
    "robot:create": frozenset({Role.PROJECT_ADMIN}),
    "robot:update": frozenset({Role.PROJECT_ADMIN}),
    "robot:delete": frozenset({Role.PROJECT_ADMIN}),
    "robot:read": MEMBER_READERS,
    "robot:list": MEMBER_READERS,
    # Project admins only in the schema's Harbor (v2.16; earlier 2.x let every role but limited
    # guests read logs), as harbor.md's test_assign_role_to_ldap_group expects.
    "log:list": frozenset({Role.PROJECT_ADMIN}),
}

# A MATRIX entry as a robot's permission names it, where Harbor's name differs.
ROBOT_POLICY = {"artifact:push": "repository:push"}

# What anyone (anonymous included) may do in a public project.
PUBLIC_ACTIONS = frozenset(
    {
        "project:read",
        "repository:list",
        "artifact:list",
        "artifact:read",
        "artifact-addition:read",
        "tag:list",
        "accessory:list",
        "label:list",
        "label:read",
    }
)


# Harbor's project policies, as (resource under /project/{id}, action, MATRIX entry deciding
# it): the MATRIX's own, "" naming the project itself, and pull and push named on the
# repository as Harbor names them (GET /users/current/permissions lists these).
POLICIES = [
    ("" if resource == "project" else resource, action, key)
    for key in MATRIX
    if key != "artifact:push"
    for resource, action in [key.split(":")]
] + [("repository", "pull", "artifact:read"), ("repository", "push", "artifact:push")]


def robot_of(user):
    """The signed-in robot (registry.services.robots.RobotPrincipal), or None for a person."""
    return getattr(user, "robot", None) and user


def robot_allows(robot, project: Project, key: str) -> bool:
    resource, action = ROBOT_POLICY.get(key, key).split(":")
    return robot.allows("project", project.pk, resource, action)


def is_sysadmin(user) -> bool:
    if not user.is_authenticated or robot_of(user):
        return False
    if user.is_superuser:
        return True
    if signin.is_directory_account(user):
        # Membership of ldap_group_admin_dn as of the directory cache (registry.ldap.signin), so
        # leaving the group or leaving ldap_auth takes effect without a new sign-in.
        return signin.is_directory_admin(user)
    profile = getattr(user, "harbor_profile", None)
    return bool(profile and profile.admin_role_in_auth)


def group_ids(user) -> list[int]:
    if not user.is_authenticated or robot_of(user):
        return []
    cached = getattr(user, "_registry_group_ids", None)
    if cached is None:
        links = kept(("user_groups",), _marked_group_links).bind(user=user.pk)
        cached = [group_id for (group_id,) in links]
        # The user's LDAP groups, as the directory says (cached briefly in registry.ldap.signin).
        cached += [pk for pk in signin.group_ids_for(user) if pk not in cached]
        user._registry_group_ids = cached
    return cached


def _marked_group_links() -> QuerySet:
    """The ids of the groups of the user whose id is bound as `user`."""
    links = UserGroup.users.through.objects.filter(user_id=value("user"))
    return links.order_by("usergroup__group_name", "usergroup_id").values_list("usergroup_id")


def membership_filter(user, prefix: str = "") -> Q:
    """Member rows of `user`, directly or through one of their groups (a robot has none)."""
    if robot_of(user):
        return Q(pk__in=[])
    return Q(**{f"{prefix}user": user}) | Q(**{f"{prefix}group__in": group_ids(user)})


# A project is public when its "public" metadata reads true (any case) or 1. Compared as
# text, not as the regular expression ^(true|1)$: on SQLite a regular expression is a
# Python call per project, and the visible projects are every list's subquery (1,000
# projects: ~1.5 ms of each list's CPU).
PUBLIC_VALUE = Q(value__iexact="true") | Q(value="1")


def public_exists(project: str = "pk") -> Exists:
    """The outer row's project (its `project` column) is public."""
    return Exists(
        ProjectMetadata.objects.filter(PUBLIC_VALUE, project=OuterRef(project), name="public")
    )


def visible_projects(user, queryset: QuerySet | None = None, marked: bool = False) -> QuerySet:
    """Projects the caller may see: all for a sysadmin, public ones plus memberships else.

    `marked`: a person's memberships are matched on the markers of a kept statement
    (config.kept) instead of their values: `user` the user's id, `groups` their group
    ids, bound from `visibility`."""
    queryset = Project.objects.all() if queryset is None else queryset
    queryset = queryset.annotate(is_public=public_exists())
    if is_sysadmin(user):
        return queryset
    if not user.is_authenticated:
        return queryset.filter(is_public=True)
    robot = robot_of(user)
    if robot:
        ids = robot.project_ids()
        return queryset if "*" in ids else queryset.filter(Q(is_public=True) | Q(pk__in=ids))
    mine = marked_membership() if marked else membership_filter(user)
    member = Exists(ProjectMember.objects.filter(mine, project=OuterRef("pk")))
    return queryset.annotate(is_member=member).filter(Q(is_public=True) | Q(is_member=True))


def visibility(user) -> tuple[str | None, dict]:
    """What `visible_projects(user, marked=True)`'s SQL depends on besides its markers
    (None for a robot: its projects are written into it), and the markers' values."""
    if is_sysadmin(user):
        return "all", {"user": 0, "groups": []}
    if not user.is_authenticated:
        return "public", {"user": 0, "groups": []}
    if robot_of(user):
        return None, {"user": 0, "groups": []}
    return "member", {"user": user.pk, "groups": group_ids(user)}


def marked_membership(prefix: str = "") -> Q:
    """`membership_filter` on markers: `user` the user's id, `groups` their group ids."""
    return Q(**{f"{prefix}user_id": value("user")}) | Q(
        **{f"{prefix}group_id__in": any_id("groups")}
    )


def roles_of(user, project: Project) -> list[int]:
    """The caller's role ids in the project (direct and through groups), highest first."""
    if not user.is_authenticated:
        return []
    roles = getattr(project, "caller_roles", None)
    if roles is None:
        roles = project.caller_roles = roles_by_project(user, [project.pk]).get(project.pk, [])
    return roles


def roles_by_project(user, project_ids: list[int]) -> dict[int, list[int]]:
    """The caller's role ids in each of these projects (one query), highest first."""
    if not user.is_authenticated or robot_of(user) or not project_ids:
        return {}
    held: dict[int, set[int]] = {}
    statement = kept(("roles_by_project",), _marked_roles)
    bound = statement.bind(user=user.pk, groups=group_ids(user), projects=list(project_ids))
    for project_id, role in bound:
        held.setdefault(project_id, set()).add(role)
    return {project_id: _ranked(roles) for project_id, roles in held.items()}


def _marked_roles() -> QuerySet:
    """Member rows on markers: as `marked_membership`, and `projects` the project ids."""
    rows = ProjectMember.objects.filter(marked_membership(), project_id__in=any_id("projects"))
    # No ordering: the default one joins the projects to sort by name.
    return rows.order_by().values_list("project_id", "role")


def _ranked(held: set[int]) -> list[int]:
    return [int(role) for role in ROLE_RANK if role in held]


def project_is_public(project: Project) -> bool:
    annotated = getattr(project, "is_public", None)
    if annotated is not None:
        return bool(annotated)
    return project.metadata.filter(PUBLIC_VALUE, name="public").exists()


def can(user, project: Project, action: str) -> bool:
    if is_sysadmin(user):
        return True
    if action in PUBLIC_ACTIONS and project_is_public(project):
        return True
    robot = robot_of(user)
    if robot:
        return robot_allows(robot, project, action)
    allowed = MATRIX[action]
    return any(role in allowed for role in roles_of(user, project))


def granted_actions(user, project: Project | None) -> set[str]:
    """The MATRIX entries the caller holds in `project` (None: a project that does not
    exist, where only a sysadmin holds anything), deciding sysadmin and roles once."""
    if is_sysadmin(user):
        return set(MATRIX)
    if project is None:
        return set()
    robot = robot_of(user)
    if robot:
        granted = {key for key in MATRIX if robot_allows(robot, project, key)}
    else:
        roles = roles_of(user, project)
        granted = {key for key, allowed in MATRIX.items() if any(r in allowed for r in roles)}
    if project_is_public(project):
        granted |= PUBLIC_ACTIONS
    return granted
