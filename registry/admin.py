from django.contrib import admin

from registry.models import (
    Artifact,
    ArtifactLabel,
    ArtifactReference,
    ConfigEntry,
    Label,
    Project,
    ProjectMember,
    ProjectMetadata,
    Repository,
    Tag,
    UserGroup,
    UserProfile,
)


class ProjectMetadataInline(admin.TabularInline):
    model = ProjectMetadata
    extra = 0


class ProjectMemberInline(admin.TabularInline):
    model = ProjectMember
    extra = 0
    raw_id_fields = ["user", "group"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "storage_limit", "storage_used", "creation_time"]
    search_fields = ["name", "owner__username"]
    list_filter = ["creation_time"]
    raw_id_fields = ["owner"]
    inlines = [ProjectMetadataInline, ProjectMemberInline]


@admin.register(ProjectMetadata)
class ProjectMetadataAdmin(admin.ModelAdmin):
    list_display = ["project", "name", "value", "update_time"]
    search_fields = ["project__name", "name", "value"]
    list_filter = ["name"]


@admin.register(ProjectMember)
class ProjectMemberAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "group", "role", "creation_time"]
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
    search_fields = ["user__username", "realname"]
    list_filter = ["admin_role_in_auth"]
    raw_id_fields = ["user"]


@admin.register(ConfigEntry)
class ConfigEntryAdmin(admin.ModelAdmin):
    list_display = ["key", "update_time"]
    search_fields = ["key"]
    list_filter = ["update_time"]
    # Values may hold passwords (ldap_search_password): edited through the API only.
    exclude = ["value"]


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "pull_count", "creation_time", "update_time"]
    search_fields = ["name", "description"]
    list_filter = ["creation_time"]
    raw_id_fields = ["project"]


class TagInline(admin.TabularInline):
    model = Tag
    extra = 0
    raw_id_fields = ["repository"]


@admin.register(Artifact)
class ArtifactAdmin(admin.ModelAdmin):
    list_display = ["digest", "repository", "type", "size", "push_time", "pull_time"]
    search_fields = ["digest", "repository__name"]
    list_filter = ["type", "media_type"]
    raw_id_fields = ["repository", "project"]
    inlines = [TagInline]


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ["name", "repository", "artifact", "push_time", "pull_time"]
    search_fields = ["name", "repository__name"]
    list_filter = ["push_time"]
    raw_id_fields = ["repository", "artifact"]


@admin.register(ArtifactReference)
class ArtifactReferenceAdmin(admin.ModelAdmin):
    list_display = ["parent", "child_digest", "child"]
    search_fields = ["child_digest", "parent__digest"]
    list_filter = ["parent__type"]
    raw_id_fields = ["parent", "child"]


@admin.register(Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ["name", "scope", "project", "color", "creation_time"]
    search_fields = ["name", "description"]
    list_filter = ["scope"]
    raw_id_fields = ["project"]


@admin.register(ArtifactLabel)
class ArtifactLabelAdmin(admin.ModelAdmin):
    list_display = ["artifact", "label", "creation_time"]
    search_fields = ["label__name", "artifact__digest"]
    list_filter = ["label"]
    raw_id_fields = ["artifact", "label"]


# The OCI distribution records (registry/distribution) are registered in their own module.
from registry.distribution import admin as distribution_admin  # noqa: E402,F401
