"""The one Django user behind all three services: disable, enable, reset a password."""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from config import accounts
from config.admin_tools import record

User = get_user_model()

admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    list_display = [
        "username",
        "email",
        "is_active",
        "is_staff",
        "is_superuser",
        "last_login",
        "date_joined",
    ]
    list_filter = ["is_active", "is_staff", "is_superuser", "date_joined", "last_login"]
    actions = ["disable_accounts", "enable_accounts", "reset_passwords"]

    def has_delete_permission(self, request, obj=None):
        # A user owns repositories (git directories) and stores: deleting the row alone
        # would leave them behind. Disable instead; deletion belongs to the services.
        return False

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            # Unticking "Active" is a disable like the action's: sessions and tokens go.
            accounts.disable_accounts([obj])

    @admin.action(description="Disable the accounts in all three services (tokens revoked)")
    def disable_accounts(self, request, queryset):
        users = [user for user in queryset if user.pk != request.user.pk]
        accounts.disable_accounts(users)
        count = record(self, request, users, "Disabled the account in every service.")
        self.message_user(request, f"Disabled {count} account(s).", messages.SUCCESS)
        if len(users) < queryset.count():
            self.message_user(request, "Your own account was left enabled.", messages.WARNING)

    @admin.action(description="Enable the accounts again")
    def enable_accounts(self, request, queryset):
        users = list(queryset)
        accounts.enable_accounts(users)
        count = record(self, request, users, "Enabled the account.")
        self.message_user(request, f"Enabled {count} account(s).", messages.SUCCESS)

    @admin.action(description="Reset the password (a new one, shown once)")
    def reset_passwords(self, request, queryset):
        for user in queryset:
            password = accounts.reset_password(user)
            record(self, request, [user], "Reset the password.")
            # Shown once to the administrator, who hands it over; never logged.
            self.message_user(
                request, f"New password of {user.get_username()}: {password}", messages.INFO
            )
