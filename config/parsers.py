from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


class NulInJSON(ParseError):
    """Well-formed JSON refused by our rule (services answer it as their own bad request)."""


class StrictJSONParser(JSONParser):
    """JSON whose strings hold no NUL character: PostgreSQL text cannot store one, so such a
    body is refused as malformed instead of failing in the database."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if _has_nul(data):
            raise NulInJSON("JSON parse error - strings must not contain NUL characters")
        return data
