"""Django's own error answers, given around the views (a Host not in ALLOWED_HOSTS refused
by CommonMiddleware, a crash in middleware), in the error format of the service whose
path was asked for; Django's pages elsewhere (the admin, the login and store pages).

Apps never import each other, so each app maps its path prefixes to a function on its
AppConfig (`error_pages = {"/api/v2.0/": "registry.api.exceptions.error_page"}`) that
takes the status (400 or 500) and returns the response.
"""

import functools

from django.apps import apps
from django.utils.module_loading import import_string
from django.views import defaults


@functools.cache
def _pages() -> list[tuple[str, object]]:
    found = [
        (prefix, import_string(dotted))
        for config in apps.get_app_configs()
        for prefix, dotted in getattr(config, "error_pages", {}).items()
    ]
    # The longest prefix wins.
    return sorted(found, key=lambda entry: -len(entry[0]))


def _service_page(request, status: int):
    for prefix, page in _pages():
        if request.path_info.startswith(prefix):
            return page(status)
    return None


def bad_request(request, exception):
    return _service_page(request, 400) or defaults.bad_request(request, exception)


def server_error(request):
    return _service_page(request, 500) or defaults.server_error(request)
