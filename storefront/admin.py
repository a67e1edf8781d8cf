import secrets

from django.contrib import admin, messages

from storefront import installations, models, suspension


@admin.register(models.Store)
class StoreAdmin(admin.ModelAdmin):
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
    raw_id_fields = ("owner",)
    actions = ("suspend_stores", "resume_stores")

    @admin.action(description="Suspend selected stores (plan not renewed)")
    def suspend_stores(self, request, queryset):
        for store in queryset:
            suspension.suspend(store.pk, reason="suspended by a site admin")
        self.message_user(request, f"Suspended {queryset.count()} store(s).")

    @admin.action(description="Resume selected stores")
    def resume_stores(self, request, queryset):
        for store in queryset:
            suspension.resume(store.pk)
        self.message_user(request, f"Resumed {queryset.count()} store(s).")


@admin.register(models.App)
class AppAdmin(admin.ModelAdmin):
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


@admin.register(models.Installation)
class InstallationAdmin(admin.ModelAdmin):
    list_display = ("id", "store", "app", "scopes", "suspended_at", "created_at")
    search_fields = ("store__id", "app__name")
    list_filter = (("suspended_at", admin.EmptyFieldListFilter), "app")
    raw_id_fields = ("store", "app")
    actions = ("suspend_access", "resume_access", "uninstall_apps")

    @admin.action(description="Suspend the app's access (recurring charge unpaid)")
    def suspend_access(self, request, queryset):
        for installation in queryset:
            suspension.suspend(
                installation.store_id, installation.app_id, reason="suspended by a site admin"
            )
        self.message_user(request, f"Suspended {queryset.count()} installation(s).")

    @admin.action(description="Resume the app's access")
    def resume_access(self, request, queryset):
        for installation in queryset:
            suspension.resume(installation.store_id, installation.app_id)
        self.message_user(request, f"Resumed {queryset.count()} installation(s).")

    @admin.action(description="Uninstall the app (as the store owner would; app/uninstalled)")
    def uninstall_apps(self, request, queryset):
        pairs = list(queryset.values_list("store_id", "app_id"))
        for store_id, app_id in pairs:
            installations.uninstall(store_id, app_id)
        self.message_user(request, f"Uninstalled {len(pairs)} app(s).")


@admin.register(models.AuthorizationCode)
class AuthorizationCodeAdmin(admin.ModelAdmin):
    list_display = ("id", "installation", "expires_at", "used_at", "created_at")
    search_fields = ("installation__store__id", "installation__app__name")
    list_filter = (("used_at", admin.EmptyFieldListFilter),)
    exclude = ("code_hash",)
    raw_id_fields = ("installation",)


@admin.register(models.AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    list_display = ("id", "installation", "created_at")
    search_fields = ("installation__store__id", "installation__app__name")
    list_filter = ("created_at",)
    exclude = ("token_hash",)
    raw_id_fields = ("installation",)


@admin.register(models.Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ("id", "__str__", "store", "parent", "updated_at")
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
    search_fields = ("id", "name", "tags", "brand")
    list_filter = ("published", "free_shipping", "requires_shipping", "store")
    raw_id_fields = ("store",)
    filter_horizontal = ("categories",)
    inlines = [VariantInline, ProductImageInline]


@admin.register(models.Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ("id", "sku", "product", "price", "stock", "position")
    search_fields = ("sku", "barcode", "product__id")
    list_filter = ("age_group", "gender")
    raw_id_fields = ("product", "image")


@admin.register(models.ProductImage)
class ProductImageAdmin(admin.ModelAdmin):
    list_display = ("id", "src", "product", "position")
    search_fields = ("src", "product__id")
    list_filter = ("created_at",)
    raw_id_fields = ("product",)


@admin.register(models.Script)
class ScriptAdmin(admin.ModelAdmin):
    list_display = ("id", "src", "store", "app", "event", "where")
    search_fields = ("src", "store__id", "app__name")
    list_filter = ("event", "where", "app")
    raw_id_fields = ("store", "app")


# --- webhooks (issue 9): subscriptions, and every delivery with its attempts ---------


@admin.register(models.Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("id", "event", "url", "installation", "created_at", "updated_at")
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
class DeliveryAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "event",
        "object_id",
        "store",
        "app",
        "url",
        "status",
        "attempts",
        "next_attempt_at",
        "created_at",
        "finished_at",
    )
    search_fields = ("url", "store__id", "app__name", "object_id")
    list_filter = ("status", "event", "app")
    list_select_related = ("store", "app")
    raw_id_fields = ("webhook", "store", "app")
    readonly_fields = ("body", "created_at")
    inlines = [DeliveryAttemptInline]


@admin.register(models.DeliveryAttempt)
class DeliveryAttemptAdmin(admin.ModelAdmin):
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
