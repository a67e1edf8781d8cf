from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# No body of the three APIs nests anywhere near this deep; deeper JSON would exhaust the
# interpreter's recursion (in the decoder, our checks or a serializer) and fail as a 500.
MAX_JSON_DEPTH = 64


def _has_nul(value) -> bool:
    """Whether a string anywhere in `value` holds a NUL; walked without recursion."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise ParseError("JSON parse error - nested too deeply")
            members = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((member, depth + 1) for member in members)
    return False


class NulInJSON(ParseError):
    """Well-formed JSON refused by our rule (services answer it as their own bad request)."""


class StrictJSONParser(JSONParser):
    """JSON whose strings hold no NUL character: PostgreSQL text cannot store one, so such a
    body is refused as malformed instead of failing in the database. JSON nested deeper
    than MAX_JSON_DEPTH is malformed too."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - nested too deeply") from exc
        if _has_nul(data):
            raise NulInJSON("JSON parse error - strings must not contain NUL characters")
        return data
