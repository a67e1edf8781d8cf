from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from codehost import git_urls
from config import pages, probes
from config.docs import docs_urls
from config.password_change import ThrottledPasswordChangeView, admin_password_change
from registry.distribution.views import TokenView
from storefront import images as storefront_images
from storefront.api.base import TiendanubeUnknownPathView

# Django's own 400 and 500 answers in the error format of the service asked for.
handler400 = "config.error_pages.bad_request"
handler500 = "config.error_pages.server_error"

urlpatterns = [
    # git smart HTTP: /{owner}/{repo}.git/... First, so that owners named like another
    # prefix (the default account "admin", "apps", "media"...) keep their git URLs; no
    # other route has a path of this shape.
    path("", include("codehost.git_urls")),
    path("", pages.front_door, name="front-door"),
    path("livez", probes.livez),
    path("readyz", probes.readyz),
    # Before the admin's and django.contrib.auth's own: the old password is throttled.
    path("admin/password_change/", admin.site.admin_view(admin_password_change)),
    path(
        "accounts/password_change/",
        ThrottledPasswordChangeView.as_view(),
        name="password_change",
    ),
    path("admin/", admin.site.urls),
    # Of django.contrib.auth's pages, sign-in, sign-out and the password change's result:
    # no self-service password reset. The server sends no mail (no EMAIL_* settings), so
    # its form only made anonymous callers open SMTP connections to localhost, unthrottled;
    # an administrator resets a password (the Users action "Reset the password").
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("api/docs/", pages.docs_index, name="api-docs"),
    path("api/docs/", include(docs_urls())),
    path("api/v2.0/", include("registry.api.urls")),
    path("v2/", include("registry.distribution.urls")),
    path("service/token", TokenView.as_view()),
    path("api/v1/", include("codehost.api.urls")),
    path("v1/<int:store_id>/", include("storefront.api.urls")),
    # A store id that is not a number still gets Tiendanube's 404 body.
    re_path(r"^v1/", TiendanubeUnknownPathView.as_view()),
    path("apps/", include("storefront.urls")),
    path("stores/", include("storefront.page_urls")),
    path("media/storefront/<path:name>", storefront_images.serve),
    # git at a repository's page address (no ".git"), last: see codehost.git_urls.
    path("", include(git_urls.without_suffix)),
]
