"""The password change pages (`/accounts/password_change/`, `/admin/password_change/`).

Their form checks the old password: a password check like a sign-in, counted and throttled
by config.signin_throttle as the registry's `PUT /users/{id}/password` is, so that a stolen
session is no unthrottled oracle for the account's password (which works on all three
services and outlives the session). A throttled attempt raises SignInThrottled, answered
429 by config.middleware.SignInThrottleMiddleware.
"""

from django.contrib import admin
from django.contrib.admin.forms import AdminPasswordChangeForm
from django.contrib.auth.forms import PasswordChangeForm
from django.contrib.auth.views import PasswordChangeView
from django.core.exceptions import ValidationError
from django.urls import reverse

from config import signin_throttle


class ThrottledOldPassword:
    """For a PasswordChangeForm: the view passes the request, whose address is counted."""

    def __init__(self, *args, request=None, **kwargs):
        self.request = request
        super().__init__(*args, **kwargs)

    def clean_old_password(self):
        username = self.user.get_username()
        signin_throttle.check(self.request, username)
        try:
            return super().clean_old_password()
        except ValidationError:
            signin_throttle.record_failure(self.request, username)
            raise


class ThrottledPasswordChangeForm(ThrottledOldPassword, PasswordChangeForm):
    pass


class ThrottledAdminPasswordChangeForm(ThrottledOldPassword, AdminPasswordChangeForm):
    pass


class ThrottledPasswordChangeView(PasswordChangeView):
    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}


def admin_password_change(request):
    """The admin site's own page (AdminSite.password_change) with the throttled form."""
    request.current_app = admin.site.name
    view = ThrottledPasswordChangeView.as_view(
        form_class=ThrottledAdminPasswordChangeForm,
        success_url=reverse("admin:password_change_done", current_app=admin.site.name),
        extra_context=admin.site.each_context(request),
    )
    return view(request)
