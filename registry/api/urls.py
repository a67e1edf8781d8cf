"""Registry API routes under /api/v2.0/. Repository names may hold "/" (single-encoded %2F
is decoded before routing), so repository routes match greedily and the more specific
artifact routes come first. Metadata is served with and without the trailing slash."""

from django.urls import path, re_path, register_converter

from registry.api.base import HarborUnknownPathView
from registry.api.views import (
    additions,
    artifacts,
    audit_logs,
    gc,
    labels,
    ldap,
    members,
    metadata,
    projects,
    repositories,
    robots,
    system,
    tags,
    user_permissions,
    users,
)


class IdConverter:
    """An int64 id; longer digit strings fall through to the 404 catch-all."""

    regex = "[0-9]{1,18}"

    def to_python(self, value):
        return int(value)

    def to_url(self, value):
        return str(value)


register_converter(IdConverter, "id")

PROJECT = r"^projects/(?P<project_name_or_id>[^/]+)"
REPO = r"^projects/(?P<project_name>[^/]+)/repositories/(?P<repository_name>.+?)"
ARTIFACT = REPO + r"/artifacts/(?P<reference>[^/]+)"

urlpatterns = [
    path("health", system.HealthView.as_view()),
    path("ping", system.PingView.as_view()),
    path("search", system.SearchView.as_view()),
    path("statistics", system.StatisticsView.as_view()),
    path("configurations", system.ConfigurationsView.as_view()),
    path("internalconfig", system.InternalConfigView.as_view()),
    path("projects", projects.ProjectListView.as_view()),
    re_path(PROJECT + r"$", projects.ProjectDetailView.as_view()),
    re_path(PROJECT + r"/_deletable$", projects.ProjectDeletableView.as_view()),
    re_path(PROJECT + r"/summary$", projects.ProjectSummaryView.as_view()),
    re_path(PROJECT + r"/members$", members.MemberListView.as_view()),
    re_path(PROJECT + r"/members/(?P<mid>[0-9]{1,18})$", members.MemberDetailView.as_view()),
    re_path(r"^projects/(?P<project_name>[^/]+)/logs$", audit_logs.ProjectLogsView.as_view()),
    re_path(PROJECT + r"/metadatas/?$", metadata.MetadataListView.as_view()),
    re_path(PROJECT + r"/metadatas/(?P<meta_name>[^/]+)$", metadata.MetadataDetailView.as_view()),
    path("repositories", repositories.AllRepositoriesView.as_view()),
    re_path(
        r"^projects/(?P<project_name>[^/]+)/repositories$",
        repositories.ProjectRepositoriesView.as_view(),
    ),
    re_path(
        ARTIFACT + r"/labels/(?P<label_id>[0-9]{1,18})$",
        artifacts.ArtifactLabelDetailView.as_view(),
    ),
    re_path(ARTIFACT + r"/labels$", artifacts.ArtifactLabelsView.as_view()),
    re_path(ARTIFACT + r"/tags/(?P<tag_name>[^/]+)$", tags.ArtifactTagDetailView.as_view()),
    re_path(ARTIFACT + r"/tags$", tags.ArtifactTagsView.as_view()),
    re_path(ARTIFACT + r"/accessories$", additions.ArtifactAccessoriesView.as_view()),
    re_path(
        ARTIFACT + r"/additions/vulnerabilities$",
        additions.ArtifactVulnerabilitiesView.as_view(),
    ),
    re_path(
        ARTIFACT + r"/additions/(?P<addition>[^/]+)$", additions.ArtifactAdditionView.as_view()
    ),
    re_path(ARTIFACT + r"$", artifacts.ArtifactDetailView.as_view()),
    re_path(REPO + r"/artifacts$", artifacts.ArtifactListView.as_view()),
    re_path(REPO + r"$", repositories.RepositoryDetailView.as_view()),
    path("users", users.UserListView.as_view()),
    path("users/current", users.CurrentUserView.as_view()),
    path("users/current/permissions", user_permissions.CurrentUserPermissionsView.as_view()),
    path("users/search", users.UserSearchView.as_view()),
    path("users/<id:user_id>", users.UserDetailView.as_view()),
    path("users/<id:user_id>/password", users.UserPasswordView.as_view()),
    path("users/<id:user_id>/sysadmin", users.UserSysAdminView.as_view()),
    path("usergroups", users.UserGroupListView.as_view()),
    path("usergroups/search", users.UserGroupSearchView.as_view()),
    path("usergroups/<id:group_id>", users.UserGroupDetailView.as_view()),
    path("robots", robots.RobotListView.as_view()),
    path("robots/<id:robot_id>", robots.RobotDetailView.as_view()),
    path("audit-logs", audit_logs.AuditLogListView.as_view()),
    path("labels", labels.LabelListView.as_view()),
    path("labels/<id:label_id>", labels.LabelDetailView.as_view()),
    path("system/gc", gc.GCHistoryView.as_view()),
    path("system/gc/schedule", gc.GCScheduleView.as_view()),
    path("system/gc/<id:gc_id>", gc.GCDetailView.as_view()),
    path("system/gc/<id:gc_id>/log", gc.GCLogView.as_view()),
    path("ldap/ping", ldap.LdapPingView.as_view()),
    path("ldap/users/search", ldap.LdapUserSearchView.as_view()),
    path("ldap/users/import", ldap.LdapUserImportView.as_view()),
    path("ldap/groups/search", ldap.LdapGroupSearchView.as_view()),
    re_path(r"^[\s\S]*$", HarborUnknownPathView.as_view()),
]
