import re
import uuid

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.base import BaseHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpResponse
from django.utils.module_loading import import_string

from config.logging import current_request_id
from config.signin_throttle import SignInThrottled

# A client-sent id is echoed only when it is short and printable (it lands in logs).
VALID_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


class RequestIdMiddleware:
    """Every response carries X-Request-Id: the client's own, or a generated UUID."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        sent = request.headers.get("X-Request-Id", "")
        request_id = sent if VALID_REQUEST_ID.match(sent) else str(uuid.uuid4())
        request.request_id = request_id
        token = current_request_id.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            current_request_id.reset(token)
        response["X-Request-Id"] = request_id
        return response


class SignInThrottleMiddleware:
    """The login pages' answer to a throttled sign-in (the APIs answer in their own error
    format): 429 with Retry-After."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, SignInThrottled):
            return None
        response = HttpResponse(
            f"{exception}\n",
            status=429,
            content_type="text/plain; charset=utf-8",
        )
        response["Retry-After"] = str(exception.retry_after)
        return response


class _LeanHandler(BaseHandler):
    """Django's request handling (URL resolution, the view, exceptions turned into
    responses) behind a shorter middleware list, resolved against `urlconf` alone."""

    def __init__(self, middleware: list[str], urlconf: str):
        super().__init__()
        self.urlconf = urlconf
        self._view_middleware = []
        self._template_response_middleware = []
        self._exception_middleware = []
        handler = convert_exception_to_response(self._get_response)
        for path in reversed(middleware):
            instance = import_string(path)(handler)
            if any(hasattr(instance, hook) for hook in UNSUPPORTED_HOOKS):
                # Only request/response middleware is chained here (as Django's own
                # security, common and clickjacking middleware are).
                raise ImproperlyConfigured(f"{path} needs hooks a lean route does not run")
            handler = convert_exception_to_response(instance)
        self.chain = handler

    def __call__(self, request):
        request.urlconf = self.urlconf
        return self.chain(request)


UNSUPPORTED_HOOKS = ("process_view", "process_template_response", "process_exception")


class LeanRoutesMiddleware:
    """Requests under a prefix of settings.LEAN_ROUTES run only the middleware listed there
    and are resolved against that route's URLconf alone; the rest of MIDDLEWARE (static
    files, sessions, CSRF, authentication, messages, the sign-in pages' throttle answer) is
    for the browser pages and the other APIs.

    `/v2/` is every pull's path: its views authenticate by the Authorization header
    themselves, are CSRF-exempt and use no session; skipping that middleware and the full
    URL map cut a manifest GET's CPU in the web process (see the commit that added this).
    The middleware before this one (X-Request-Id) runs for every request.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.routes = [
            (prefix, _LeanHandler(route["MIDDLEWARE"], route["URLCONF"]))
            for prefix, route in settings.LEAN_ROUTES.items()
        ]

    def __call__(self, request):
        path = request.path_info
        for prefix, handler in self.routes:
            if path.startswith(prefix):
                return handler(request)
        return self.get_response(request)
