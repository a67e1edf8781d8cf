from django.urls import re_path

from codehost.git_http import smart_http

# Gitea's git routes: the smart protocol and the dumb one's files, nothing else of the
# repository's directory (a path with `..` never reaches git).
GIT_ROUTES = (
    r"info/refs|git-upload-pack|git-receive-pack|HEAD|objects/info/[A-Za-z0-9_-]+"
    r"|objects/[0-9a-f]{2}/[0-9a-f]{38,62}|objects/pack/pack-[0-9a-f]{40,64}\.(?:pack|idx)"
)

urlpatterns = [
    re_path(
        # No owner or repository name holds a NUL (PostgreSQL cannot even compare one).
        rf"^(?P<owner>[^/\x00]+)/(?P<repo>[^/\x00]+?)\.git/(?P<rest>{GIT_ROUTES})$",
        smart_http,
    ),
]

# Gitea serves git at the repository's page address too (`git clone http://host/o/r`): a
# repository name never ends in ".git". Mounted after every other route (config.urls),
# so that no other prefix loses a path to it.
without_suffix = [
    re_path(rf"^(?P<owner>[^/\x00]+)/(?P<repo>[^/\x00]+)/(?P<rest>{GIT_ROUTES})$", smart_http),
]
