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


def redact_url(url: str) -> str:
    """A URL or request target with its secret query parameters redacted."""
    path, sep, query = url.partition("?")
    return path + sep + redact_query(query) if sep else url
