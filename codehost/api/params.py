"""Gitea's query parameter parsing, for `config.filters.Param`: each parser reads one raw
value and raises the domain error Gitea's binder answers (422) on bad input."""

from codehost.errors import Invalid
from config.limits import INT64_MAX, INT64_MIN, go_int

# Gitea parses query booleans with strconv.ParseBool; giteapy sends True/False.
PARSE_BOOL_TRUE = {"1", "t", "true"}
PARSE_BOOL_FALSE = {"0", "f", "false"}


def gitea_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in PARSE_BOOL_TRUE:
        return True
    if value in PARSE_BOOL_FALSE:
        return False
    raise Invalid(f"[{name}]: must be a boolean")


def check_int64(name: str, value: int) -> int:
    """Gitea's integer parameters are int64: anything beyond is refused, never sent to the
    database (where it overflows, or matches nothing by accident)."""
    if not INT64_MIN <= value <= INT64_MAX:
        raise Invalid(f"[{name}]: value out of range")
    return value


def gitea_int(name: str, raw: str) -> int:
    """Gitea reads with strconv: a sign and ASCII digits, no white space, underscores or
    other scripts' digits (which Python's int() takes)."""
    number = go_int(raw)
    if number is None:
        raise Invalid(f"[{name}]: must be an integer")
    return check_int64(name, number)


def stripped(name: str, raw: str) -> str:
    return raw.strip()
