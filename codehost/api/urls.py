from django.urls import path, re_path

from codehost.api.base import GiteaUnknownPathView
from codehost.api.migration_views import MigrateRepositoryView, MirrorSyncView
from codehost.api.views import repos, teams, users

urlpatterns = [
    # teams
    path("orgs/<str:org>/teams", teams.OrgTeamsView.as_view()),
    path("orgs/<str:org>/teams/search", teams.OrgTeamSearchView.as_view()),
    path("user/teams", teams.UserTeamsView.as_view()),
    path("teams/<int:id>", teams.TeamView.as_view()),
    path("teams/<int:id>/members", teams.TeamMembersView.as_view()),
    path("teams/<int:id>/members/<str:username>", teams.TeamMemberView.as_view()),
    path("teams/<int:id>/repos", teams.TeamReposView.as_view()),
    path("teams/<int:id>/repos/<str:org>/<str:repo>", teams.TeamRepoView.as_view()),
    path("teams/<int:id>/activities/feeds", teams.TeamFeedView.as_view()),
    # repositories
    path("repos/search", repos.RepoSearchView.as_view()),
    path("user/repos", repos.UserReposView.as_view()),
    path("orgs/<str:org>/repos", repos.OrgReposView.as_view()),
    path("org/<str:org>/repos", repos.OrgReposView.as_view()),
    path("repositories/<int:id>", repos.RepoByIdView.as_view()),
    path("repos/<str:owner>/<str:repo>", repos.RepoView.as_view()),
    path("repos/<str:owner>/<str:repo>/forks", repos.RepoForksView.as_view()),
    path("repos/<str:owner>/<str:repo>/topics", repos.RepoTopicsView.as_view()),
    path("repos/<str:owner>/<str:repo>/collaborators", repos.RepoCollaboratorsView.as_view()),
    path(
        "repos/<str:owner>/<str:repo>/collaborators/<str:collaborator>",
        repos.RepoCollaboratorView.as_view(),
    ),
    # migrations and pull mirrors
    path("repos/migrate", MigrateRepositoryView.as_view()),
    path("repos/<str:owner>/<str:repo>/mirror-sync", MirrorSyncView.as_view()),
    # accounts, organizations and the rest clients need
    path("admin/users", users.AdminUsersView.as_view()),
    path("admin/users/<str:username>", users.AdminUserView.as_view()),
    path("admin/users/<str:username>/orgs", users.AdminUserOrgsView.as_view()),
    path("admin/users/<str:username>/repos", users.AdminUserReposView.as_view()),
    path("user", users.CurrentUserView.as_view()),
    path("users/<str:username>", users.UserView.as_view()),
    path("users/<str:username>/repos", repos.OwnerReposView.as_view()),
    path("users/<str:username>/tokens", users.UserTokensView.as_view()),
    path("users/<str:username>/tokens/<str:token>", users.UserTokenView.as_view()),
    path("orgs", users.OrgsView.as_view()),
    path("orgs/<str:org>", users.OrgView.as_view()),
    path("orgs/<str:org>/members", users.OrgMembersView.as_view()),
    path("user/starred", users.StarredView.as_view()),
    path("user/starred/<str:owner>/<str:repo>", users.StarView.as_view()),
    path("user/blocks/<str:username>", users.UserBlockView.as_view()),
    path("version", users.VersionView.as_view()),
    path("settings/api", users.APISettingsView.as_view()),
    # [\s\S]: paths with encoded newlines reach the catch-all too ("." would not match
    # them, and an inline (?s) flag breaks URL reversing).
    re_path(r"^[\s\S]*$", GiteaUnknownPathView.as_view()),
]
