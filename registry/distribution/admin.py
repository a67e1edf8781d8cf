from django.contrib import admin

from config.admin_tools import ServiceDeleteMixin, SystemRecordAdmin
from registry.distribution import blobs
from registry.distribution.models import Blob, Referrer, RepositoryBlob, Upload

# Everything here is written by the distribution protocol: a blob typed in by hand would
# have no file behind it. Read-only; abandoned uploads are cancelled as DELETE does.


@admin.register(Blob)
class BlobAdmin(SystemRecordAdmin):
    list_display = ["digest", "size", "object_name", "creation_time"]
    search_fields = ["=digest"]
    list_filter = ["creation_time"]


@admin.register(RepositoryBlob)
class RepositoryBlobAdmin(SystemRecordAdmin):
    list_display = ["repository_name", "blob", "creation_time"]
    list_select_related = ["blob"]
    search_fields = ["repository_name", "=blob__digest"]
    list_filter = ["creation_time"]
    raw_id_fields = ["blob"]


@admin.register(Upload)
class UploadAdmin(ServiceDeleteMixin, SystemRecordAdmin):
    list_display = ["id", "repository_name", "offset", "creation_time", "update_time"]
    search_fields = ["repository_name", "=id"]
    list_filter = ["update_time"]

    def delete_through(self, obj):
        # DELETE /v2/<name>/blobs/uploads/<uuid>: the staged bytes go with the record.
        blobs.cancel_upload(obj)


@admin.register(Referrer)
class ReferrerAdmin(SystemRecordAdmin):
    list_display = ["artifact", "subject_digest", "artifact_type", "media_type", "size"]
    list_select_related = ["artifact"]
    search_fields = ["subject_digest", "artifact__digest"]
    list_filter = ["artifact_type"]
    raw_id_fields = ["artifact"]
