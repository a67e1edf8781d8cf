from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.urls import path, reverse

from config.admin_tools import ServiceDeleteMixin, SystemRecordAdmin
from registry.errors import PreconditionFailed
from registry.gc import services as gc_services
from registry.models import (
    Artifact,
    ArtifactLabel,
    ArtifactReference,
    AuditLog,
    ConfigEntry,
    GCExecution,
    GCSchedule,
    Label,
    Project,
    ProjectMember,
    ProjectMetadata,
    Repository,
    Robot,
    Tag,
    UserGroup,
    UserProfile,
)
from registry.services import artifacts, projects, repositories


class ProjectMetadataInline(admin.TabularInline):
    model = ProjectMetadata
    extra = 0


class ProjectMemberInline(admin.TabularInline):
    model = ProjectMember
    extra = 0
    raw_id_fields = ["user", "group"]


@admin.register(Project)
class ProjectAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """Projects are created through the API (owner membership, metadata); here the quota
    is edited and an empty project deleted as DELETE /projects/{name} does."""

    list_display = ["name", "owner", "storage_limit", "storage_used", "creation_time"]
    list_select_related = ["owner"]
    search_fields = ["name", "owner__username"]
    list_filter = ["creation_time"]
    raw_id_fields = ["owner"]
    readonly_fields = ["name", "owner", "registry_id", "storage_used", "creation_time"]
    inlines = [ProjectMetadataInline, ProjectMemberInline]

    def has_add_permission(self, request):
        return False

    def delete_model(self, request, obj):
        try:
            projects.delete_project(obj)
        except PreconditionFailed as error:
            self.message_user(request, f"{obj.name}: {error.message}", messages.ERROR)

    def delete_queryset(self, request, queryset):
        for project in queryset:
            self.delete_model(request, project)


@admin.register(ProjectMetadata)
class ProjectMetadataAdmin(admin.ModelAdmin):
    list_display = ["project", "name", "value", "update_time"]
    list_select_related = ["project"]
    raw_id_fields = ["project"]
    search_fields = ["project__name", "name", "value"]
    list_filter = ["name"]


@admin.register(ProjectMember)
class ProjectMemberAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "group", "role", "creation_time"]
    list_select_related = ["project", "user", "group"]
    search_fields = ["project__name", "user__username", "group__group_name"]
    list_filter = ["role"]
    raw_id_fields = ["project", "user", "group"]


@admin.register(UserGroup)
class UserGroupAdmin(admin.ModelAdmin):
    list_display = ["group_name", "group_type", "ldap_group_dn", "creation_time"]
    search_fields = ["group_name", "ldap_group_dn"]
    list_filter = ["group_type"]
    filter_horizontal = ["users"]


@admin.register(UserProfile)
class UserProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "realname", "comment", "admin_role_in_auth"]
    list_select_related = ["user"]
    search_fields = ["user__username", "realname"]
    list_filter = ["admin_role_in_auth"]
    # admin_role_in_auth makes a Harbor system admin: the directory sets it (membership of
    # ldap_group_admin_dn at sign-in), never a hand edit, nor by moving a profile that has
    # it to another account. Profiles are created by the services.
    readonly_fields = ["user", "admin_role_in_auth"]

    def has_add_permission(self, request):
        return False


@admin.register(ConfigEntry)
class ConfigEntryAdmin(admin.ModelAdmin):
    list_display = ["key", "update_time"]
    search_fields = ["key"]
    list_filter = ["update_time"]
    # Values may hold passwords (ldap_search_password): edited through the API only.
    exclude = ["value"]


@admin.register(Repository)
class RepositoryAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """Created by pushes; only the description is edited here. Deleted with its artifacts
    and the project's usage recomputed, as DELETE /repositories/{name} does."""

    list_display = ["name", "project", "pull_count", "creation_time", "update_time"]
    list_select_related = ["project"]
    search_fields = ["name", "description", "project__name"]
    list_filter = ["creation_time"]
    raw_id_fields = ["project"]
    readonly_fields = ["name", "project", "pull_count", "creation_time", "update_time"]

    def has_add_permission(self, request):
        return False

    def delete_through(self, obj):
        repositories.delete_repository(obj)


class TagInline(admin.TabularInline):
    model = Tag
    extra = 0
    fields = ["name", "push_time", "pull_time"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Artifact)
class ArtifactAdmin(ServiceDeleteMixin, SystemRecordAdmin):
    """Written by pushes; deleted as DELETE .../artifacts/{reference} does (tags, labels,
    orphaned index children, accessories, project usage)."""

    list_display = ["digest", "repository", "type", "size", "push_time", "pull_time"]
    list_select_related = ["repository"]
    search_fields = ["digest", "repository__name"]
    list_filter = ["type", "push_time", "pull_time"]
    raw_id_fields = ["repository", "project"]
    inlines = [TagInline]

    def delete_through(self, obj):
        artifacts.delete_artifact(obj)


@admin.register(Tag)
class TagAdmin(ServiceDeleteMixin, SystemRecordAdmin):
    list_display = ["name", "repository", "artifact", "push_time", "pull_time"]
    list_select_related = ["repository", "artifact"]
    search_fields = ["name", "repository__name", "artifact__digest"]
    list_filter = ["push_time"]
    raw_id_fields = ["repository", "artifact"]

    def delete_through(self, obj):
        artifacts.delete_tag(obj.repository, obj.name)


@admin.register(ArtifactReference)
class ArtifactReferenceAdmin(SystemRecordAdmin):
    list_display = ["parent", "child_digest", "child"]
    list_select_related = ["parent", "child"]
    search_fields = ["child_digest", "parent__digest"]
    list_filter = ["parent__type"]
    raw_id_fields = ["parent", "child"]


@admin.register(Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ["name", "scope", "project", "color", "creation_time"]
    list_select_related = ["project"]
    search_fields = ["name", "description"]
    list_filter = ["scope"]
    raw_id_fields = ["project"]


@admin.register(ArtifactLabel)
class ArtifactLabelAdmin(admin.ModelAdmin):
    list_display = ["artifact", "label", "creation_time"]
    list_select_related = ["artifact", "label"]
    search_fields = ["label__name", "artifact__digest"]
    list_filter = ["label"]
    raw_id_fields = ["artifact", "label"]


@admin.register(Robot)
class RobotAdmin(SystemRecordAdmin):
    """Robots are managed through /api/v2.0/robots (the secret is shown once there)."""

    list_display = ["name", "level", "project", "disabled", "expires_at", "creation_time"]
    list_select_related = ["project"]
    search_fields = ["name", "description", "project__name"]
    list_filter = ["level", "disabled", "creation_time"]
    exclude = ["secret_hash"]


@admin.register(AuditLog)
class AuditLogAdmin(SystemRecordAdmin):
    list_display = ["op_time", "username", "operation", "resource_type", "resource", "project_id"]
    search_fields = ["username", "resource"]
    list_filter = ["operation", "resource_type", "op_time"]


# The OCI distribution records (registry/distribution) are registered in their own module.
from registry.distribution import admin as distribution_admin  # noqa: E402,F401


@admin.register(GCExecution)
class GCExecutionAdmin(SystemRecordAdmin):
    """Runs are started here (a button above the list, for superusers: what Harbor's API
    requires), through POST /api/v2.0/system/gc/schedule, or by its schedule; all three
    through the same service, one run at a time."""

    change_list_template = "admin/registry/gcexecution/change_list.html"

    def get_urls(self):
        run = path("run/", self.admin_site.admin_view(self.run_now), name="registry_gc_run")
        return [run, *super().get_urls()]

    def run_now(self, request):
        changelist = reverse("admin:registry_gcexecution_changelist")
        if request.method != "POST":
            return HttpResponseRedirect(changelist)
        if not request.user.is_superuser:
            raise PermissionDenied
        dry_run = bool(request.POST.get("dry_run"))
        try:
            execution = gc_services.start(
                delete_untagged=False, dry_run=dry_run, trigger=GCExecution.Trigger.MANUAL
            )
        except gc_services.AlreadyRunning as error:
            self.message_user(request, str(error).capitalize() + ".", messages.WARNING)
            return HttpResponseRedirect(changelist)
        self.log_addition(
            request, execution, "Started from the admin" + (" (dry run)." if dry_run else ".")
        )
        self.message_user(request, f"Garbage collection {execution.pk} queued.")
        return HttpResponseRedirect(changelist)

    list_display = [
        "id",
        "status",
        "trigger",
        "delete_untagged",
        "dry_run",
        "freed_bytes",
        "creation_time",
        "update_time",
    ]
    list_filter = ["status", "trigger", "dry_run", "creation_time"]
    search_fields = ["=id", "log"]


@admin.register(GCSchedule)
class GCScheduleAdmin(SystemRecordAdmin):
    list_display = ["cron_type", "cron", "delete_untagged", "dry_run", "next_run"]
