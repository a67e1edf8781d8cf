from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from config import json_shape


class UnstorableJSON(ParseError):
    """Well-formed JSON refused by our rule (services answer it as their own bad request)."""


class StrictJSONParser(JSONParser):
    """JSON whose strings hold no NUL character (PostgreSQL text cannot store one) and no
    lone surrogate (no UTF-8 answer can carry one): such a body is refused as malformed
    instead of failing in the database or in every later answer holding it. JSON nested deeper
    than json_shape.MAX_DEPTH is malformed too (deeper fails in the decoder itself)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - {json_shape.TOO_DEEP}") from exc
        found = json_shape.problem(data)
        if found in json_shape.UNSTORABLE:
            raise UnstorableJSON(f"JSON parse error - {found}")
        if found:
            raise ParseError(f"JSON parse error - {found}")
        return data
