"""What the apps' admin modules share: records only the system writes, deletion through
the owning service, and operator actions recorded in the admin log."""

from django.contrib import admin
from django.contrib.auth import get_permission_codename


class SystemRecordAdmin(admin.ModelAdmin):
    """A record written by the system (a push, a worker, the API): shown, never added or
    edited by hand, since a hand edit breaks what the service keeps consistent (a blob with
    no file behind it, an attempt that never ran). Not deleted either, unless combined
    with ServiceDeleteMixin where the service has a delete operation.

    Its operator actions (retry, sync, cancel) declare `permissions=["operate"]`: they
    change the record through its service, so they need the model's change permission,
    which is all the more real for the hand edit being refused to everyone. An action
    without permissions would be open to whoever may only read the list."""

    def has_operate_permission(self, request):
        codename = get_permission_codename("change", self.opts)
        return request.user.has_perm(f"{self.opts.app_label}.{codename}")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ServiceDeleteMixin:
    """Deletion in the admin goes through `delete_through(obj)`, the service's delete path
    (files, counters and quotas follow), one record at a time, as the API deletes them."""

    def delete_through(self, obj) -> None:
        raise NotImplementedError

    def has_delete_permission(self, request, obj=None):
        # Placed before SystemRecordAdmin, whose answer is always no.
        return admin.ModelAdmin.has_delete_permission(self, request, obj)

    def delete_model(self, request, obj):
        self.delete_through(obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_through(obj)

    def get_deleted_objects(self, objs, request):
        # The service removes the dependent records itself: the admin's per-model delete
        # permissions (read-only records have none) do not apply to its cascade.
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected


def record(modeladmin, request, objects, message: str) -> int:
    """Write one admin log entry per object an action changed; the number of objects."""
    count = 0
    for obj in objects:
        modeladmin.log_change(request, obj, message)
        count += 1
    return count
