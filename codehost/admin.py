from django.contrib import admin

from codehost import models


@admin.register(models.Owner)
class OwnerAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "full_name", "visibility", "num_repos", "created_at"]
    list_filter = ["kind", "visibility"]
    search_fields = ["name", "full_name", "email"]
    raw_id_fields = ["user"]


@admin.register(models.OrgMembership)
class OrgMembershipAdmin(admin.ModelAdmin):
    list_display = ["org", "user", "is_public"]
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
    list_filter = ["access_mode", "includes_all_repositories", "can_create_org_repo"]
    search_fields = ["name", "org__name", "description"]
    raw_id_fields = ["org"]


@admin.register(models.TeamMember)
class TeamMemberAdmin(admin.ModelAdmin):
    list_display = ["team", "user"]
    list_filter = ["team__org"]
    search_fields = ["team__name", "user__name"]
    raw_id_fields = ["team", "user"]


@admin.register(models.TeamRepo)
class TeamRepoAdmin(admin.ModelAdmin):
    list_display = ["team", "repo"]
    list_filter = ["team__org"]
    search_fields = ["team__name", "repo__name"]
    raw_id_fields = ["team", "repo"]


@admin.register(models.Repository)
class RepositoryAdmin(admin.ModelAdmin):
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
    list_filter = ["private", "is_fork", "is_mirror", "is_archived", "is_template", "status"]
    search_fields = ["name", "owner__name", "description"]
    raw_id_fields = ["owner", "parent"]


@admin.register(models.RepoRedirect)
class RepoRedirectAdmin(admin.ModelAdmin):
    list_display = ["owner", "lower_name", "repo"]
    list_filter = ["owner__kind"]
    search_fields = ["lower_name", "owner__name"]
    raw_id_fields = ["owner", "repo"]


@admin.register(models.Collaboration)
class CollaborationAdmin(admin.ModelAdmin):
    list_display = ["repo", "user", "access_mode"]
    list_filter = ["access_mode"]
    search_fields = ["repo__name", "user__name"]
    raw_id_fields = ["repo", "user"]


@admin.register(models.Star)
class StarAdmin(admin.ModelAdmin):
    list_display = ["user", "repo", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["user__name", "repo__name"]
    raw_id_fields = ["user", "repo"]


@admin.register(models.UserBlock)
class UserBlockAdmin(admin.ModelAdmin):
    list_display = ["blocker", "blockee", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["blocker__name", "blockee__name"]
    raw_id_fields = ["blocker", "blockee"]


@admin.register(models.AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    # The token itself is never stored; only its last eight characters are shown.
    list_display = ["name", "user", "token_last_eight", "scopes", "created_at", "last_used_at"]
    list_filter = ["created_at"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["token_hash", "token_last_eight"]
    raw_id_fields = ["user"]


@admin.register(models.Activity)
class ActivityAdmin(admin.ModelAdmin):
    list_display = ["op_type", "act_user", "user", "repo", "ref_name", "created"]
    list_filter = ["op_type", "is_private"]
    search_fields = ["act_user__name", "repo__name", "ref_name"]
    raw_id_fields = ["user", "act_user", "repo"]


# --- migrations and pull mirrors (issue 7) ----------------------------------------------
@admin.register(models.MigrationTask)
class MigrationTaskAdmin(admin.ModelAdmin):
    list_display = ["repo_name", "owner", "doer", "service", "status", "error_status", "created"]
    list_filter = ["status", "service", "created"]
    search_fields = ["repo_name", "owner__name", "clone_addr"]
    # The ciphertext is shown read-only; the credentials themselves never are.
    readonly_fields = ["encrypted_credentials"]
    raw_id_fields = ["repo", "doer", "owner"]


@admin.register(models.Mirror)
class MirrorAdmin(admin.ModelAdmin):
    list_display = ["repo", "interval_seconds", "sync_state", "updated", "next_update"]
    list_filter = ["sync_state", "enable_prune"]
    search_fields = ["repo__name", "repo__owner__name"]
    readonly_fields = ["encrypted_credentials"]
    raw_id_fields = ["repo"]
