import contextlib
import secrets

from django.contrib import admin, messages

from config.admin_tools import ServiceDeleteMixin, SystemRecordAdmin, record
from storefront import models
from storefront.errors import Missing, NotInstalled
from storefront.services import apps, installations, stores, suspension, webhook_delivery


@admin.register(models.Store)
class StoreAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """Deleting a store uninstalls its apps first (each hears app/uninstalled)."""

    list_display = (
        "id",
        "__str__",
        "owner",
        "main_language",
        "currency",
        "country",
        "suspended_at",
    )
    search_fields = ("id", "owner__username", "name")
    list_filter = (
        "main_language",
        "country",
        "currency",
        ("suspended_at", admin.EmptyFieldListFilter),
    )
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    # Suspension goes through the actions, which tell the apps (app/suspended).
    readonly_fields = ("suspended_at", "suspension_reason", "created_at", "updated_at")
    actions = ("suspend_stores", "resume_stores")

    def delete_through(self, obj):
        with contextlib.suppress(Missing):  # deleted meanwhile (another admin)
            stores.delete_store(obj.pk)

    @admin.action(description="Suspend selected stores (plan not renewed)", permissions=["change"])
    def suspend_stores(self, request, queryset):
        stores = list(queryset)
        for store in stores:
            suspension.suspend(store.pk, reason="suspended by a site admin")
        count = record(self, request, stores, "Suspended the store.")
        self.message_user(request, f"Suspended {count} store(s).")

    @admin.action(description="Resume selected stores", permissions=["change"])
    def resume_stores(self, request, queryset):
        stores = list(queryset)
        for store in stores:
            suspension.resume(store.pk)
        count = record(self, request, stores, "Resumed the store.")
        self.message_user(request, f"Resumed {count} store(s).")


@admin.register(models.App)
class AppAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """An app is deleted once it is installed nowhere and nothing waits to be sent to it
    (apps.deletion_blockers): the admin shows what is left as protected, as for PROTECT."""

    list_display = ("id", "name", "redirect_uri", "scopes", "recurring_price", "created_at")
    search_fields = ("id", "name", "redirect_uri")
    list_filter = ("created_at",)
    exclude = ("client_secret",)

    def save_model(self, request, obj, form, change):
        if not obj.client_secret:
            # Shown once, as `createapp` prints it; the app developer needs it.
            obj.client_secret = secrets.token_hex(24)
            messages.info(request, f"Client secret of the new app: {obj.client_secret}")
        super().save_model(request, obj, form, change)

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        blockers = [f"{app}: {reason}" for app in objs for reason in apps.deletion_blockers(app)]
        return deleted, counts, perms_needed, [*protected, *blockers]

    def delete_through(self, obj):
        apps.delete_app(obj.pk)


@admin.register(models.Installation)
class InstallationAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """Deleting an installation is uninstalling the app, as its owner would: the app hears
    app/uninstalled and its token, webhooks and scripts go."""

    list_display = ("id", "store", "app", "scopes", "suspended_at", "created_at")
    list_select_related = ("store", "app")
    search_fields = ("store__id", "app__name")
    list_filter = (("suspended_at", admin.EmptyFieldListFilter), "app", "created_at")
    raw_id_fields = ("store", "app")
    # Made by the OAuth flow; the granted scopes are the store owner's consent.
    readonly_fields = (
        "store",
        "app",
        "scopes",
        "suspended_at",
        "suspension_reason",
        "created_at",
        "updated_at",
    )
    actions = ("suspend_access", "resume_access", "uninstall_apps")

    def has_add_permission(self, request):
        return False

    def delete_through(self, obj):
        # Uninstalled meanwhile (the owner, another admin): nothing to undo.
        with contextlib.suppress(NotInstalled):
            installations.uninstall(obj.store_id, obj.app_id)

    @admin.action(
        description="Suspend the app's access (recurring charge unpaid)", permissions=["change"]
    )
    def suspend_access(self, request, queryset):
        chosen = list(queryset)
        for installation in chosen:
            suspension.suspend(
                installation.store_id, installation.app_id, reason="suspended by a site admin"
            )
        count = record(self, request, chosen, "Suspended the app's access.")
        self.message_user(request, f"Suspended {count} installation(s).")

    @admin.action(description="Resume the app's access", permissions=["change"])
    def resume_access(self, request, queryset):
        chosen = list(queryset)
        for installation in chosen:
            suspension.resume(installation.store_id, installation.app_id)
        count = record(self, request, chosen, "Resumed the app's access.")
        self.message_user(request, f"Resumed {count} installation(s).")

    @admin.action(
        description="Uninstall the app (as the store owner would; app/uninstalled)",
        permissions=["delete"],
    )
    def uninstall_apps(self, request, queryset):
        chosen = list(queryset)
        self.log_deletions(request, chosen)
        done = 0
        for installation in chosen:
            try:
                installations.uninstall(installation.store_id, installation.app_id)
            except NotInstalled:
                continue  # uninstalled meanwhile (the owner, another admin): nothing to undo
            done += 1
        self.message_user(request, f"Uninstalled {done} app(s).")


@admin.register(models.AuthorizationCode)
class AuthorizationCodeAdmin(SystemRecordAdmin):
    list_display = ("id", "installation", "expires_at", "used_at", "created_at")
    list_select_related = ("installation",)
    search_fields = ("installation__store__id", "installation__app__name")
    list_filter = (("used_at", admin.EmptyFieldListFilter),)
    exclude = ("code_hash",)
    raw_id_fields = ("installation",)


@admin.register(models.AccessToken)
class AccessTokenAdmin(ServiceDeleteMixin, SystemRecordAdmin):
    """An app's token in a store; deleting it revokes it (the app must be authorized again)."""

    list_display = ("id", "installation", "created_at")
    list_select_related = ("installation",)
    search_fields = ("installation__store__id", "installation__app__name")
    list_filter = ("created_at",)
    exclude = ("token_hash",)
    raw_id_fields = ("installation",)
    actions = ("revoke",)

    def delete_through(self, obj):
        obj.delete()

    @admin.action(description="Revoke the selected tokens", permissions=["delete"])
    def revoke(self, request, queryset):
        tokens = list(queryset)
        self.log_deletions(request, tokens)
        for token in tokens:
            self.delete_through(token)
        self.message_user(request, f"Revoked {len(tokens)} token(s).")


@admin.register(models.Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ("id", "__str__", "store", "parent", "updated_at")
    list_select_related = ("store", "parent")
    search_fields = ("id", "name", "handle")
    list_filter = ("store",)
    raw_id_fields = ("store", "parent")


class VariantInline(admin.TabularInline):
    model = models.Variant
    extra = 0
    raw_id_fields = ("image",)


class ProductImageInline(admin.TabularInline):
    model = models.ProductImage
    extra = 0


@admin.register(models.Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ("id", "__str__", "store", "published", "free_shipping", "updated_at")
    list_select_related = ("store",)
    search_fields = ("id", "name", "tags", "brand")
    list_filter = ("published", "free_shipping", "requires_shipping", "store")
    raw_id_fields = ("store",)
    filter_horizontal = ("categories",)
    inlines = [VariantInline, ProductImageInline]


@admin.register(models.Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ("id", "sku", "product", "price", "stock", "position")
    list_select_related = ("product",)
    search_fields = ("sku", "barcode", "product__id")
    list_filter = ("age_group", "gender")
    raw_id_fields = ("product", "image")


@admin.register(models.ProductImage)
class ProductImageAdmin(admin.ModelAdmin):
    list_display = ("id", "src", "product", "position")
    list_select_related = ("product",)
    search_fields = ("src", "product__id")
    list_filter = ("created_at",)
    raw_id_fields = ("product",)


@admin.register(models.Script)
class ScriptAdmin(admin.ModelAdmin):
    list_display = ("id", "src", "store", "app", "event", "where")
    list_select_related = ("store", "app")
    search_fields = ("src", "store__id", "app__name")
    list_filter = ("event", "where", "app")
    raw_id_fields = ("store", "app")


# --- webhooks: subscriptions, and every delivery with its attempts ---------


@admin.register(models.Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("id", "event", "url", "installation", "created_at", "updated_at")
    list_select_related = ("installation",)
    search_fields = ("url", "installation__store__id", "installation__app__name")
    list_filter = ("event",)
    raw_id_fields = ("installation",)


class DeliveryAttemptInline(admin.TabularInline):
    model = models.DeliveryAttempt
    extra = 0
    can_delete = False
    readonly_fields = (
        "number",
        "started_at",
        "finished_at",
        "duration_ms",
        "status_code",
        "error",
        "worker",
    )

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(models.Delivery)
class DeliveryAdmin(SystemRecordAdmin):
    list_display = (
        "id",
        "event",
        "store",
        "app",
        "url",
        "status",
        "attempts",
        "next_attempt_at",
        "finished_at",
    )
    search_fields = ("url", "store__id", "app__name", "=object_id")
    list_filter = ("status", "event", "app", "created_at", "finished_at")
    list_select_related = ("store", "app")
    raw_id_fields = ("webhook", "store", "app")
    inlines = [DeliveryAttemptInline]
    actions = ("retry_now",)

    @admin.action(description="Retry now (failed or dropped deliveries)", permissions=["operate"])
    def retry_now(self, request, queryset):
        retried = webhook_delivery.retry_now(list(queryset.values_list("pk", flat=True)))
        count = record(
            self, request, queryset.model.objects.filter(pk__in=retried), "Queued a retry."
        )
        self.message_user(request, f"Queued {count} delivery(ies) again.")
        if skipped := queryset.count() - count:
            self.message_user(
                request, f"{skipped} skipped: pending or delivered already.", messages.WARNING
            )


@admin.register(models.DeliveryAttempt)
class DeliveryAttemptAdmin(SystemRecordAdmin):
    list_display = (
        "id",
        "delivery",
        "number",
        "started_at",
        "duration_ms",
        "status_code",
        "error",
        "worker",
    )
    search_fields = ("delivery__url", "error", "worker")
    list_filter = ("status_code", "started_at")
    list_select_related = ("delivery",)
    raw_id_fields = ("delivery",)
