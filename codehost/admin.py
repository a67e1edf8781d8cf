from django.conf import settings
from django.contrib import admin, messages
from django.utils import timezone

from codehost import dashboard, models, tasks
from codehost.errors import InternalError
from codehost.services import migrations, mirrors, repositories
from config.admin_tools import ServiceDeleteMixin, SystemRecordAdmin, record


@admin.register(models.Owner)
class OwnerAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "kind",
        "full_name",
        "visibility",
        "num_repos",
        "must_change_password",
        "created_at",
    ]
    list_filter = ["kind", "visibility", "must_change_password", "created_at"]
    search_fields = ["name", "full_name", "email"]
    raw_id_fields = ["user"]
    # The name is the git directory's; counters are kept by the services.
    readonly_fields = ["name", "lower_name", "kind", "user", "num_repos", "num_stars"]
    actions = ["require_password_change", "clear_password_change"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        # Deleting the row would leave its repositories' git directories behind.
        return False

    @admin.action(
        description="Require a password change at the next sign-in", permissions=["change"]
    )
    def require_password_change(self, request, queryset):
        users = list(queryset.filter(kind=models.Owner.Kind.USER))
        models.Owner.objects.filter(pk__in=[owner.pk for owner in users]).update(
            must_change_password=True
        )
        count = record(self, request, users, "Set must_change_password.")
        self.message_user(request, f"{count} user(s) must change their password.")

    @admin.action(description="Clear must_change_password", permissions=["change"])
    def clear_password_change(self, request, queryset):
        users = list(queryset.filter(must_change_password=True))
        models.Owner.objects.filter(pk__in=[owner.pk for owner in users]).update(
            must_change_password=False
        )
        count = record(self, request, users, "Cleared must_change_password.")
        self.message_user(request, f"Cleared must_change_password of {count} user(s).")


@admin.register(models.OrgMembership)
class OrgMembershipAdmin(admin.ModelAdmin):
    list_display = ["org", "user", "is_public"]
    list_select_related = ["org", "user"]
    list_filter = ["is_public"]
    search_fields = ["org__name", "user__name"]
    raw_id_fields = ["org", "user"]


@admin.register(models.Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "org",
        "access_mode",
        "includes_all_repositories",
        "num_members",
        "num_repos",
    ]
    list_select_related = ["org"]
    list_filter = ["access_mode", "includes_all_repositories", "can_create_org_repo"]
    search_fields = ["name", "org__name", "description"]
    raw_id_fields = ["org"]


@admin.register(models.TeamMember)
class TeamMemberAdmin(admin.ModelAdmin):
    list_display = ["team", "user"]
    list_select_related = ["team__org", "user"]
    list_filter = ["team__org"]
    search_fields = ["team__name", "user__name"]
    raw_id_fields = ["team", "user"]


@admin.register(models.TeamRepo)
class TeamRepoAdmin(admin.ModelAdmin):
    list_display = ["team", "repo"]
    list_select_related = ["team__org", "repo__owner"]
    list_filter = ["team__org"]
    search_fields = ["team__name", "repo__name"]
    raw_id_fields = ["team", "repo"]


@admin.register(models.Repository)
class RepositoryAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """Created through the API (the git directory with it); the name is renamed through
    the API too (the directory moves). Deleted as DELETE /repos/{owner}/{repo} does: the
    git directory goes after the commit, counters follow."""

    list_display = [
        "name",
        "owner",
        "private",
        "is_fork",
        "is_mirror",
        "is_archived",
        "status",
        "size",
        "updated_at",
    ]
    list_select_related = ["owner"]
    list_filter = [
        "private",
        "is_fork",
        "is_mirror",
        "is_archived",
        "is_template",
        "status",
        "updated_at",
    ]
    search_fields = ["name", "owner__name", "description"]
    raw_id_fields = ["owner", "parent"]
    readonly_fields = [
        "owner",
        "name",
        "lower_name",
        "is_fork",
        "parent",
        "is_empty",
        "size",
        "default_branch",
        "num_stars",
        "num_forks",
        "num_watches",
        "topics",
        "topics_index",
        "status",
        "is_mirror",
        "original_url",
        "original_service_type",
        "archived_at",
        "created_at",
        "updated_at",
    ]

    def has_add_permission(self, request):
        return False

    def delete_through(self, obj):
        repositories.delete_repo(obj)


@admin.register(models.RepoRedirect)
class RepoRedirectAdmin(admin.ModelAdmin):
    list_display = ["owner", "lower_name", "repo"]
    list_select_related = ["owner", "repo__owner"]
    list_filter = ["owner__kind"]
    search_fields = ["lower_name", "owner__name"]
    raw_id_fields = ["owner", "repo"]


@admin.register(models.Collaboration)
class CollaborationAdmin(admin.ModelAdmin):
    list_display = ["repo", "user", "access_mode"]
    list_select_related = ["repo__owner", "user"]
    list_filter = ["access_mode"]
    search_fields = ["repo__name", "user__name"]
    raw_id_fields = ["repo", "user"]


@admin.register(models.Star)
class StarAdmin(admin.ModelAdmin):
    list_display = ["user", "repo", "created_at"]
    list_select_related = ["user", "repo__owner"]
    list_filter = ["created_at"]
    search_fields = ["user__name", "repo__name"]
    raw_id_fields = ["user", "repo"]


@admin.register(models.UserBlock)
class UserBlockAdmin(admin.ModelAdmin):
    list_display = ["blocker", "blockee", "created_at"]
    list_select_related = ["blocker", "blockee"]
    list_filter = ["created_at"]
    search_fields = ["blocker__name", "blockee__name"]
    raw_id_fields = ["blocker", "blockee"]


@admin.register(models.AccessToken)
class AccessTokenAdmin(ServiceDeleteMixin, SystemRecordAdmin):
    # The token itself is never stored; only its digest and last eight characters.
    list_display = ["name", "user", "token_last_eight", "scopes", "created_at", "last_used_at"]
    list_select_related = ["user"]
    list_filter = ["created_at", "last_used_at"]
    search_fields = ["name", "user__username", "token_last_eight"]
    raw_id_fields = ["user"]
    # The digest is the token's lookup key: not shown, as the store tokens' is not.
    exclude = ["token_hash"]
    actions = ["revoke"]

    def delete_through(self, obj):
        # DELETE /users/{username}/tokens/{id}: a deleted token is a revoked one.
        obj.delete()

    @admin.action(description="Revoke the selected tokens", permissions=["delete"])
    def revoke(self, request, queryset):
        tokens = list(queryset)
        self.log_deletions(request, tokens)
        for token in tokens:
            self.delete_through(token)
        self.message_user(request, f"Revoked {len(tokens)} token(s).")


@admin.register(models.Activity)
class ActivityAdmin(SystemRecordAdmin):
    list_display = ["op_type", "act_user", "user", "repo", "ref_name", "created"]
    list_select_related = ["act_user", "user", "repo__owner"]
    list_filter = ["op_type", "is_private", "created"]
    search_fields = ["act_user__name", "repo__name", "ref_name"]
    raw_id_fields = ["user", "act_user", "repo"]


# --- migrations and pull mirrors: the workers' records -----------------------------------
CANCELLED = "cancelled by a site administrator"


@admin.register(models.MigrationTask)
class MigrationTaskAdmin(SystemRecordAdmin):
    list_display = ["repo_name", "owner", "doer", "service", "status", "error_code", "created"]
    list_select_related = ["owner", "doer"]
    list_filter = ["status", "service", "created", "finished"]
    search_fields = ["repo_name", "owner__name", "clone_addr"]
    # The ciphertext of the credentials is never shown.
    exclude = ["encrypted_credentials"]
    raw_id_fields = ["repo", "doer", "owner"]
    actions = ["cancel"]

    @admin.action(
        description="Cancel (the migration fails, its repository is removed)",
        permissions=["operate"],
    )
    def cancel(self, request, queryset):
        # The path the reaper takes for a stuck migration: a worker still cloning finds the
        # task failed when it finishes and discards its clone.
        cancelled = [
            task
            for task in queryset.select_related("owner")
            if migrations.fail_migration(task.pk, InternalError.code, CANCELLED)
        ]
        count = record(self, request, cancelled, "Cancelled the migration.")
        self.message_user(request, f"Cancelled {count} migration(s).")
        if skipped := queryset.count() - count:
            self.message_user(request, f"{skipped} had already finished.", messages.WARNING)


class OverdueFilter(admin.SimpleListFilter):
    title = "schedule"
    parameter_name = "overdue"

    def lookups(self, request, model_admin):
        return [("1", "overdue")]

    def queryset(self, request, queryset):
        if self.value() == "1":
            return queryset.filter(
                sync_state=models.Mirror.SyncState.IDLE,
                next_update__lt=timezone.now() - dashboard.overdue_after(),
            )
        return queryset


class FailingFilter(admin.SimpleListFilter):
    title = "last sync"
    parameter_name = "failing"

    def lookups(self, request, model_admin):
        return [("1", "failed")]

    def queryset(self, request, queryset):
        return queryset.exclude(last_error="") if self.value() == "1" else queryset


@admin.register(models.Mirror)
class MirrorAdmin(SystemRecordAdmin):
    list_display = [
        "repo",
        "interval_seconds",
        "sync_state",
        "updated",
        "next_update",
        "last_error",
    ]
    list_select_related = ["repo__owner"]
    list_filter = ["sync_state", OverdueFilter, FailingFilter, "enable_prune", "updated"]
    search_fields = ["repo__name", "repo__owner__name"]
    exclude = ["encrypted_credentials"]
    raw_id_fields = ["repo"]
    actions = ["sync_now"]

    @admin.action(description="Sync now", permissions=["operate"])
    def sync_now(self, request, queryset):
        # POST /repos/{owner}/{repo}/mirror-sync: queued unless a sync is queued or running,
        # refused while the mirror feature is off or the repository archived.
        if not settings.CODEHOST_MIRRORS_ENABLED:
            self.message_user(request, "Mirror feature is disabled.", messages.ERROR)
            return
        chosen = queryset.select_related("repo").filter(repo__is_archived=False)
        queued = [
            mirror for mirror in chosen if mirrors.request_sync(mirror.pk, tasks.sync_mirror.delay)
        ]
        count = record(self, request, queued, "Queued a sync.")
        self.message_user(request, f"Queued {count} sync(s).")
        if skipped := queryset.count() - count:
            self.message_user(
                request, f"{skipped} archived, or already queued or running.", messages.WARNING
            )
