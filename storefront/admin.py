import secrets

from django.contrib import admin, messages

from storefront import models


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


@admin.register(models.RateBucket)
class RateBucketAdmin(admin.ModelAdmin):
    list_display = ("key", "level", "updated")
    search_fields = ("key",)
