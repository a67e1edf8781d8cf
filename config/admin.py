"""The one Django user behind all three services: disable, enable, reset a password,
delete (config.account_deletion: refused while the account owns things anywhere)."""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q

from config import account_deletion, accounts
from config.admin_tools import record

User = get_user_model()

admin.site.unregister(User)
admin.site.unregister(Group)


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
    # Who holds these holds every right: only a superuser grants them.
    GRANTING_FIELDS = ("is_superuser", "is_staff", "groups", "user_permissions")

    # A staff account that may edit accounts is not a superuser for that: it grants no
    # rights (not even to itself) and cannot edit, reset, disable or delete the account of
    # a superuser or of another staff member, else the password reset shown to it would
    # sign it in with that account's rights.
    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        if request.user.is_superuser:
            return fields
        return [*fields, *self.GRANTING_FIELDS]

    @staticmethod
    def _out_of_reach(request, account) -> bool:
        if request.user.is_superuser or account.pk == request.user.pk:
            return False
        return account.is_superuser or account.is_staff

    def has_change_permission(self, request, obj=None):
        if obj is not None and self._out_of_reach(request, obj):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and self._out_of_reach(request, obj):
            return False
        return super().has_delete_permission(request, obj)

    def get_action_queryset(self, request, queryset):
        """The selected accounts an action may touch (see `_out_of_reach`)."""
        if request.user.is_superuser:
            return queryset
        privileged = Q(is_superuser=True) | Q(is_staff=True)
        reachable = queryset.exclude(privileged & ~Q(pk=request.user.pk))
        if reachable.count() < queryset.count():
            self.message_user(
                request, "Superuser and other staff accounts were left unchanged.", messages.WARNING
            )
        return reachable

    def get_deleted_objects(self, objs, request):
        # What an account still owns in any service blocks its deletion, as a protected
        # object does: the admin's confirmation page lists it and deletes nothing. What
        # goes along with an account that owns nothing (its namespace, tokens, feed) is
        # the account deletion's business, whatever the other admins allow on their own.
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        for user in objs:
            protected.extend(
                f"{user.get_username()}: {holding.message} ({holding.service})"
                for holding in account_deletion.holdings(user)
            )
        # The accounts themselves still need the permission (a superuser's, a superuser).
        refused = any(not self.has_delete_permission(request, user) for user in objs)
        return deleted, counts, {self.opts.verbose_name} if refused else set(), protected

    def delete_model(self, request, obj):
        # The same operation as Harbor's and Gitea's user deletion (config.account_deletion).
        self.delete_queryset(request, [obj])

    def delete_queryset(self, request, queryset):
        try:
            with transaction.atomic():  # all of the selected accounts, or none
                for user in queryset:
                    account_deletion.delete_account(user)
        except account_deletion.AccountStillOwns as error:
            # It came to own something since the confirmation page: 403, nothing deleted.
            raise PermissionDenied(str(error)) from error

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            # Unticking "Active" is a disable like the action's: sessions and tokens go.
            accounts.disable_accounts([obj])

    @admin.action(
        description="Disable the accounts in all three services (tokens revoked)",
        permissions=["change"],
    )
    def disable_accounts(self, request, queryset):
        queryset = self.get_action_queryset(request, queryset)
        users = [user for user in queryset if user.pk != request.user.pk]
        accounts.disable_accounts(users)
        count = record(self, request, users, "Disabled the account in every service.")
        self.message_user(request, f"Disabled {count} account(s).", messages.SUCCESS)
        if len(users) < queryset.count():
            self.message_user(request, "Your own account was left enabled.", messages.WARNING)

    @admin.action(description="Enable the accounts again", permissions=["change"])
    def enable_accounts(self, request, queryset):
        users = list(self.get_action_queryset(request, queryset))
        accounts.enable_accounts(users)
        count = record(self, request, users, "Enabled the account.")
        self.message_user(request, f"Enabled {count} account(s).", messages.SUCCESS)

    @admin.action(description="Reset the password (a new one, shown once)", permissions=["change"])
    def reset_passwords(self, request, queryset):
        for user in self.get_action_queryset(request, queryset):
            password = accounts.reset_password(user)
            record(self, request, [user], "Reset the password.")
            # Shown once to the administrator, who hands it over; never logged.
            self.message_user(
                request, f"New password of {user.get_username()}: {password}", messages.INFO
            )


@admin.register(Group)
class AccountGroupAdmin(GroupAdmin):
    """A group's permissions are granted by a superuser only: whoever may edit groups would
    otherwise give their own group every permission."""

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return fields if request.user.is_superuser else [*fields, "permissions"]
