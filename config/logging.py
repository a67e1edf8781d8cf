import contextvars
import logging
import re
from urllib.parse import unquote_plus

current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


class RequestIdFilter(logging.Filter):
    """Adds the id of the request being served to every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True


# Query parameters whose values are secrets (tokens, passwords, signatures, OAuth codes),
# by name: any name containing one of these words, or one of the short names.
SECRET_WORDS = ("token", "secret", "passw", "signature", "credential", "session", "apikey")
SECRET_NAMES = {"code", "key", "sig", "pwd", "auth", "api_key", "jwt"}
# Request headers never written to a log line (a custom access log format may name them).
SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "x-api-key"}
REDACTED = "[REDACTED]"


def is_secret_name(name: str) -> bool:
    name = unquote_plus(name).lower()
    return name in SECRET_NAMES or any(word in name for word in SECRET_WORDS)


def redact_query(query: str) -> str:
    """`query` with the value of every secret parameter replaced by [REDACTED]."""
    if not query:
        return query
    parts = re.split(r"([&;])", query)
    for index in range(0, len(parts), 2):
        name, sep, _ = parts[index].partition("=")
        if sep and is_secret_name(name):
            parts[index] = f"{name}={REDACTED}"
    return "".join(parts)


# The user:password before the host of a URL (a request target in absolute form may have
# one), and a query parameter anywhere in a text (a quoted request line in a message).
USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]*@")
PARAMETER = re.compile(r"([?&;])([^=&;#\s'\"]+)=([^&;#\s'\"]*)")


def redact_url(url: str) -> str:
    """A URL or request target with its secret query parameters and its user:password
    redacted."""
    if "@" in url:
        url = USERINFO.sub(rf"\1{REDACTED}@", url)
    path, sep, query = url.partition("?")
    return path + sep + redact_query(query) if sep else url


def redact_text(text: str) -> str:
    """Free text (a log message quoting a request line) with the values of secret query
    parameters and any URL's user:password redacted."""

    def parameter(match: re.Match) -> str:
        mark, name, _ = match.groups()
        return f"{mark}{name}={REDACTED}" if is_secret_name(name) else match.group(0)

    return PARAMETER.sub(parameter, USERINFO.sub(rf"\1{REDACTED}@", text))
