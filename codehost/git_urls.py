from django.urls import re_path

from codehost.git_http import smart_http

urlpatterns = [
    re_path(
        r"^(?P<owner>[^/]+)/(?P<repo>[^/]+?)\.git/(?P<rest>info/refs|git-upload-pack|git-receive-pack|HEAD|objects/.+)$",
        smart_http,
    ),
]
