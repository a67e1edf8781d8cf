import re
import uuid

from django.http import HttpResponse

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
