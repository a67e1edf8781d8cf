"""The `Range` of a blob GET, read as the distribution registry reads it: its blob server
hands the blob to Go's http.ServeContent, whose rules (RFC 7233) these are.

A range that cannot be read is refused with 416 and a plain-text line ("invalid range"),
one that lies wholly past the end with 416, "invalid range: failed to overlap" and
`Content-Range: bytes */<size>`; never a JSON error code.
"""

from django.http import HttpResponse

from config.limits import INT64_MAX, go_int

INVALID = "invalid range"
NO_OVERLAP = "invalid range: failed to overlap"


class Unsatisfiable(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _trim(text: str) -> str:
    # textproto.TrimString: ASCII white space only.
    return text.strip(" \t\r\n")


def _number(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), None when it fails."""
    value = go_int(text)
    return value if value is not None and abs(value) <= INT64_MAX else None


def parse(header: str, size: int) -> list[tuple[int, int]]:
    """The (start, length) ranges of a `Range` value; Unsatisfiable when there are none."""
    if not header.startswith("bytes="):
        raise Unsatisfiable(INVALID)
    ranges = []
    no_overlap = False
    for spec in header.removeprefix("bytes=").split(","):
        spec = _trim(spec)
        if not spec:
            continue
        first, dash, last = spec.partition("-")
        if not dash:
            raise Unsatisfiable(INVALID)
        first, last = _trim(first), _trim(last)
        if not first:
            # A suffix: the last `last` bytes.
            count = _number(last) if last and last[0] != "-" else None
            if count is None or count < 0:
                raise Unsatisfiable(INVALID)
            count = min(count, size)
            ranges.append((size - count, count))
            continue
        start = _number(first)
        if start is None or start < 0:
            raise Unsatisfiable(INVALID)
        if start >= size:
            no_overlap = True
            continue
        end = size - 1
        if last:
            stop = _number(last)
            if stop is None or start > stop:
                raise Unsatisfiable(INVALID)
            end = min(stop, size - 1)
        ranges.append((start, end - start + 1))
    if no_overlap and not ranges:
        raise Unsatisfiable(NO_OVERLAP)
    return ranges


def wanted_range(header: str, size: int) -> tuple[int, int] | None:
    """The one (start, length) to answer with 206, or None for the whole blob (200).

    As ServeContent: an empty blob ignores the Range, and so does a request for more bytes
    in all than the blob holds. Several ranges are answered with the whole blob too (the
    registry sends multipart/byteranges; a server may ignore Range, RFC 9110 14.2).
    """
    try:
        ranges = parse(header, size)
    except Unsatisfiable as refusal:
        if refusal.message == NO_OVERLAP and size == 0:
            return None
        raise
    if len(ranges) != 1 or sum(length for _, length in ranges) > size:
        return None
    return ranges[0]


def refused(refusal: Unsatisfiable, size: int, digest: str) -> HttpResponse:
    """Go's http.Error: 416, the message on one plain-text line."""
    response = HttpResponse(
        refusal.message + "\n", status=416, content_type="text/plain; charset=utf-8"
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Docker-Content-Digest"] = digest
    if refusal.message == NO_OVERLAP:
        response["Content-Range"] = f"bytes */{size}"
    return response
