from django.contrib import admin

from registry.distribution.models import Blob, Referrer, RepositoryBlob, Upload


@admin.register(Blob)
class BlobAdmin(admin.ModelAdmin):
    list_display = ["digest", "size", "creation_time"]
    search_fields = ["digest"]
    list_filter = ["creation_time"]


@admin.register(RepositoryBlob)
class RepositoryBlobAdmin(admin.ModelAdmin):
    list_display = ["repository_name", "blob", "creation_time"]
    search_fields = ["repository_name", "blob__digest"]
    list_filter = ["creation_time"]
    raw_id_fields = ["blob"]


@admin.register(Upload)
class UploadAdmin(admin.ModelAdmin):
    list_display = ["id", "repository_name", "offset", "creation_time", "update_time"]
    search_fields = ["repository_name"]
    list_filter = ["update_time"]


@admin.register(Referrer)
class ReferrerAdmin(admin.ModelAdmin):
    list_display = ["artifact", "subject_digest", "artifact_type", "media_type", "size"]
    search_fields = ["subject_digest", "artifact__digest"]
    list_filter = ["artifact_type"]
    raw_id_fields = ["artifact"]
