"""Reads the API views share: querysets with Harbor's visibility and counting rules.

No wire here: callers page, sort and render; a missing record is a domain NotFound.
"""

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, Exists, F, Func, IntegerField, OuterRef, Q, Subquery, Sum, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, StrIndex
from django.db.models.lookups import GreaterThan, In

from config.kept import arg, kept, value
from config.vendor_sql import Unindexed
from registry import access, configuration, name_search
from registry.distribution.models import Referrer
from registry.errors import BadRequest, NotFound
from registry.gc.models import GCExecution, GCSchedule
from registry.ldap.client import LDAP_AUTH
from registry.models import (
    Artifact,
    ArtifactReference,
    Label,
    Project,
    ProjectMember,
    ProjectMetadata,
    ProjectRepositoryCount,
    Repository,
    RepositoryArtifactCount,
    Role,
    Tag,
    UserGroup,
)

User = get_user_model()


def contains_exactly(path: str, text: str) -> GreaterThan:
    """A filter: `path` contains `text`, case-sensitively on both databases (SQLite's LIKE,
    and so Django's `__contains` there, ignores ASCII case; its instr() does not)."""
    return GreaterThan(StrIndex(path, Value(text)), 0)


# --- projects -------------------------------------------------------------------------------


def repo_count() -> Coalesce:
    """A project's repository count, as kept per project (ProjectRepositoryCount)."""
    kept = ProjectRepositoryCount.objects.filter(project=OuterRef("pk")).values("repository_count")
    return Coalesce(Subquery(kept, output_field=IntegerField()), 0)


def repositories_of(projects) -> int:
    """How many repositories the projects of `projects` (a queryset) hold, added up from
    their kept counts rather than counted."""
    kept = ProjectRepositoryCount.objects.filter(project__in=projects.values("pk"))
    return kept.aggregate(n=Sum("repository_count"))["n"] or 0


def project_list(
    user, name: str = "", public: bool | None = None, owner: str = "", marked: bool = False
):
    """listProjects' filters: a name fragment, public or not, the owner's username;
    `marked` as access.visible_projects."""
    queryset = access.visible_projects(user, marked=marked).annotate(repo_count=repo_count())
    if name:
        queryset = queryset.filter(name__icontains=name)
    if public is not None:
        queryset = queryset.filter(is_public=public)
    if owner:
        queryset = queryset.filter(owner__username=owner)
    return queryset


def project_members(project: Project | int):
    """A project's members (of a project or its id) as Harbor lists them: users first
    (by username), then groups."""
    return (
        ProjectMember.objects.filter(project=project)
        .select_related("user", "group")
        # SQLite sorts NULLs first: nulls_last keeps the users first on both databases.
        .order_by(F("user__username").asc(nulls_last=True), "group__group_name", "pk")
    )


ROLE_COUNT_FIELDS = {
    Role.PROJECT_ADMIN: "project_admin_count",
    Role.MAINTAINER: "maintainer_count",
    Role.DEVELOPER: "developer_count",
    Role.GUEST: "guest_count",
    Role.LIMITED_GUEST: "limited_guest_count",
}


def project_summary(user, project: Project) -> dict:
    """Harbor's project summary: member counts only for who may list members, the quota
    only while quotas are on and for who may read it."""
    summary = {"repo_count": project.repositories.count()}
    if access.can(user, project, "member:list"):
        summary.update(
            ProjectMember.objects.filter(project=project).aggregate(
                **{
                    field: Count("pk", filter=Q(role=role))
                    for role, field in ROLE_COUNT_FIELDS.items()
                }
            )
        )
    if configuration.get("quota_per_project_enable") and access.can(user, project, "quota:read"):
        summary["quota"] = {
            "hard": {"storage": project.storage_limit},
            "used": {"storage": project.storage_used},
        }
    return summary


def require_project_named(name: str) -> None:
    """Harbor's existence check of a project name, whoever may see the project: a name
    holding a space is refused before any lookup."""
    if " " in name:
        raise BadRequest(f"invalid project name: '{name}'")
    if not Project.objects.filter(name=name).exists():
        raise NotFound(f"project {name} not found")


# --- search ---------------------------------------------------------------------------------


def search_projects(user, term: str):
    """The visible projects whose name holds `term` (case-sensitively, as Harbor's), as a
    kept statement's queryset: the caller's values and `term` are markers."""
    projects = project_list(user, marked=True)
    return projects.filter(contains_exactly("name", term)).order_by("name", "pk")


def search_repositories(user, term: str, phrase: str = ""):
    """The repositories of visible projects whose name holds `term` (any case), with their
    artifact count, project name and public flag. Markers as `search_projects`; `phrase`,
    on SQLite, the trigram table's query (`name_search.candidates_query`)."""
    repositories = visible_repositories(user, marked=True).filter(name__icontains=term)
    if phrase:
        repositories = repositories.filter(pk__in=RawSQL(name_search.CANDIDATES_SQL, [phrase]))
    # PostgreSQL joins the projects by a hash; SQLite, given a join, read each project's
    # repositories through their project index instead of scanning the names (a term
    # under 3 characters at 100,000 repositories: 19 -> 12 ms by a lookup per row).
    if connection.vendor == "postgresql":
        project_name = F("project__name")
    else:
        project_name = Subquery(Project.objects.filter(pk=OuterRef("project_id")).values("name"))
    # An anonymous caller sees public projects only: no flag to look up per row.
    public = access.public_exists("project_id") if user.is_authenticated else Value(True)
    return repositories.annotate(
        artifact_count=artifact_count(),
        project_name=project_name,
        project_public=public,
    ).order_by("name", "pk")


# --- statistics -----------------------------------------------------------------------------


def statistics(user) -> dict:
    """Harbor's statistics: public projects and repositories for everyone; the private ones
    the caller is a member of, or, for a system admin, all of them and the storage used."""
    projects = Project.objects.annotate(is_public=access.public_exists())
    public = projects.filter(is_public=True)
    stats = {
        "public_project_count": public.count(),
        "public_repo_count": repositories_of(public),
        "total_project_count": 0,
        "total_repo_count": 0,
        "total_storage_consumption": 0,
    }
    if access.is_sysadmin(user):
        stats["total_project_count"] = projects.count()
        stats["total_repo_count"] = repositories_of(Project.objects.all())
        stats["private_project_count"] = (
            stats["total_project_count"] - stats["public_project_count"]
        )
        stats["private_repo_count"] = stats["total_repo_count"] - stats["public_repo_count"]
        stats["total_storage_consumption"] = (
            Project.objects.aggregate(total=Sum("storage_used"))["total"] or 0
        )
    else:
        member = ProjectMember.objects.filter(access.membership_filter(user))
        private = projects.filter(is_public=False, pk__in=member.values("project"))
        stats["private_project_count"] = private.count()
        stats["private_repo_count"] = repositories_of(private)
    return stats


# --- repositories and artifacts -------------------------------------------------------------


def default_base():
    """Harbor's default artifact set: not the child of an index, or tagged.

    The child test comes first: few artifacts are children, so PostgreSQL rarely needs
    the tag probe (in the other order it probed the tags of every artifact)."""
    tagged = Exists(Tag.objects.filter(artifact=OuterRef("pk")))
    child = Exists(ArtifactReference.objects.filter(child=OuterRef("pk")))
    return ~Q(child) | Q(tagged)


def not_accessory() -> Q:
    """Harbor leaves accessories (artifacts pushed with a `subject`, recorded as Referrers)
    out of every artifact list and count, `base=*` included: an anti-join on the
    Referrer's unique artifact index."""
    return ~Q(Exists(Referrer.objects.filter(artifact=OuterRef("pk"))))


def artifact_count() -> Coalesce:
    """A repository's artifacts of Harbor's default set, accessories left out: the kept
    counts while no reference names a child in the repository (RepositoryArtifactCount),
    else counted (a COUNT subquery, not a grouped one; both databases evaluate COALESCE's
    second argument only when the first is NULL)."""
    kept = RepositoryArtifactCount.objects.filter(repository=OuterRef("pk"), child_count=0)
    kept = kept.annotate(n=F("artifact_count") - F("accessory_count"))
    counts = Artifact.objects.filter(
        default_base(), not_accessory(), repository=OuterRef("pk")
    ).order_by()
    counted = counts.annotate(n=Func("pk", function="COUNT", output_field=IntegerField()))
    return Coalesce(
        Subquery(kept.values("n")),
        Subquery(counted.values("n")),
        output_field=IntegerField(),
    )


def repository_id(project: Project, full_name: str) -> int | None:
    """The id of a project's repository, None when it does not exist."""
    found = kept(("repository_id",), _repository_by_name).bind(project=project.pk, name=full_name)
    return next((pk for (pk,) in found), None)


def _repository_by_name():
    """The id of the repository of the project bound as `project` named as `name`."""
    repositories = Repository.objects.filter(project_id=value("project"), name=arg("name"))
    return repositories.order_by().values_list("pk")


def repository_artifacts(repository_id: int | None, every: bool = False):
    """The artifacts of a repository but its accessories (none when it does not exist, as
    Harbor lists it: 200 []); Harbor's default set unless `every`."""
    artifacts = Artifact.objects.filter(not_accessory(), repository_id=repository_id)
    return artifacts if every else artifacts.filter(default_base())


def visible_repositories(user, marked: bool = False):
    """Every repository for a system admin, those of the visible projects otherwise;
    `marked` as access.visible_projects."""
    if access.is_sysadmin(user):
        return Repository.objects.all()
    visible = access.visible_projects(user, marked=marked).order_by().values("pk")
    # SQLite would read each visible project's repositories and sort them all; unindexed,
    # it walks the newest-first index, checking each entry's project, to the page's end.
    return Repository.objects.filter(In(Unindexed(F("project_id")), visible))


def visible_repository_counts(user, marked: bool = False):
    """The repository count of each project `visible_repositories` reads (their sum is its
    exact count): a row per project instead of a row per repository to count."""
    counts = ProjectRepositoryCount.objects.order_by()
    if not access.is_sysadmin(user):
        visible = access.visible_projects(user, marked=marked).values("pk")
        counts = counts.filter(project__in=visible)
    return counts.values_list("repository_count")


def with_artifact_count(repositories):
    return repositories.annotate(artifact_count=artifact_count())


# --- project metadata -----------------------------------------------------------------------

# Keys hidden on projects that are not proxy caches.
PROXY_ONLY = ("proxy_cache_filter_pattern", "proxy_cache_filter_kind")


def project_metadata(project: Project, name: str | None = None) -> dict[str, str]:
    """A project's metadata (one entry when `name` is given), by name."""
    entries = ProjectMetadata.objects.filter(project=project).order_by("name")
    if name is not None:
        entries = entries.filter(name=name)
    elif not project.registry_id:
        entries = entries.exclude(name__in=PROXY_ONLY)
    return dict(entries.values_list("name", "value"))


# --- garbage collection ---------------------------------------------------------------------


def gc_executions():
    return GCExecution.objects.all()


def get_gc_execution(gc_id: int) -> GCExecution:
    execution = GCExecution.objects.filter(pk=gc_id).first()
    if execution is None:
        raise NotFound(f"garbage collection {gc_id} not found")
    return execution


def gc_schedule() -> GCSchedule | None:
    return GCSchedule.objects.first()


# --- labels ---------------------------------------------------------------------------------


def label_list(scope: str, project_id: int = 0):
    """The global labels, or one project's (scope "p"); any other scope is refused."""
    if scope == Label.Scope.GLOBAL:
        return Label.objects.filter(scope=scope)
    if scope == Label.Scope.PROJECT:
        return Label.objects.filter(scope=scope, project_id=project_id)
    raise BadRequest(f"invalid scope: {scope}")


def get_label(label_id: int) -> Label:
    label = Label.objects.filter(pk=label_id).first()
    if label is None:
        raise NotFound(f"label {label_id} not found")
    return label


# --- users and groups -----------------------------------------------------------------------


def active_users():
    return User.objects.filter(is_active=True).select_related("harbor_profile")


def get_user(user_id: int):
    user = active_users().filter(pk=user_id).first()
    if user is None:
        raise NotFound(f"user {user_id} not found")
    return user


def builtin_admin_id() -> int:
    return (
        User.objects.filter(is_superuser=True).order_by("pk").values_list("pk", flat=True).first()
        or 0
    )


def user_list(username: str = "", email: str = "", with_admin: bool = False):
    """listUsers' filters. Harbor leaves the built-in admin out unless asked for."""
    queryset = active_users()
    if username:
        queryset = queryset.filter(username__icontains=username)
    if email:
        queryset = queryset.filter(email__icontains=email)
    if not with_admin:
        queryset = queryset.exclude(pk=builtin_admin_id())
    return queryset


def user_search(username: str):
    return active_users().filter(username__icontains=username).order_by("username", "pk")


def get_group(group_id: int) -> UserGroup:
    group = UserGroup.objects.filter(pk=group_id).first()
    if group is None:
        raise NotFound(f"the user group with id {group_id} is not found")
    return group


def group_list(ldap_group_dn: str = "", group_name: str = ""):
    """The groups of the current auth mode, as Harbor lists them: LDAP groups (optionally
    one DN) under ldap_auth, HTTP groups under http_auth, every group otherwise."""
    queryset = UserGroup.objects.order_by("group_name", "pk")
    mode = configuration.get("auth_mode")
    if mode == LDAP_AUTH:
        queryset = queryset.filter(group_type=UserGroup.GroupType.LDAP)
        if ldap_group_dn:
            queryset = queryset.filter(ldap_group_dn=ldap_group_dn)
    elif mode == "http_auth":
        queryset = queryset.filter(group_type=UserGroup.GroupType.HTTP)
    if group_name:
        queryset = queryset.filter(group_name__icontains=group_name)
    return queryset


def group_search(name: str):
    return UserGroup.objects.filter(group_name__icontains=name).order_by("group_name", "pk")
