"""JSON bodies of plain rows, encoded by orjson.

DRF's JSONRenderer encodes through the standard library: a page of 200 store products
(400 kB) took 13 ms of a 40 ms request. orjson writes the very bytes of DRF's compact,
non-ASCII-preserving output for str, int, bool, None, dict and list, ten times faster;
floats it spells differently (`1e-5` for `1e-05`). So a view opts in per response
(`mark_plain`) when it built the body from those types only; every other response, an
`indent` asked in Accept, and anything orjson refuses take DRF's way unchanged.

A marked body may hold `JSONText`: JSON written elsewhere (by the database), spliced
in as it is; DRF's way decodes it first.
"""

import orjson
from rest_framework.renderers import JSONRenderer


class JSONText:
    """A value already encoded as JSON text (`str` or UTF-8 `bytes`)."""

    __slots__ = ("text",)

    def __init__(self, text: str | bytes):
        self.text = text


def _spliced(value):
    if isinstance(value, JSONText):
        return orjson.Fragment(value.text)
    raise TypeError


def mark_plain(response):
    """`response`'s data holds only str, int, bool, None, dict, list and `JSONText`."""
    response.plain_json = True
    return response


class PlainJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if data is None or not getattr(response, "plain_json", False):
            return super().render(data, accepted_media_type, renderer_context)
        if self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(_decoded(data), accepted_media_type, renderer_context)
        try:
            body = orjson.dumps(data, default=_spliced)
        except TypeError:  # a huge integer, a key that is not a string
            return super().render(_decoded(data), accepted_media_type, renderer_context)
        # As DRF: U+2028 and U+2029 escaped, so the body is also valid JavaScript. Their
        # lead byte is looked for first: one memchr, where two replaces scan 400 kB twice.
        if b"\xe2" not in body:
            return body
        return body.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")


def _decoded(data):
    """`data` with each `JSONText` decoded, for DRF's encoder."""
    if isinstance(data, JSONText):
        return orjson.loads(data.text)
    if isinstance(data, dict):
        return {key: _decoded(item) for key, item in data.items()}
    if isinstance(data, list):
        return [_decoded(item) for item in data]
    return data
