"""Integer bounds of the modelled services' wire types, defined once for all three apps.

Harbor and Gitea are Go (`int64` ids, `int` page numbers) and Tiendanube keeps ids in
BIGINT columns: a number past these bounds is refused as bad input, never sent on to the
database, where it would overflow (a 500).
"""

import re

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

# Go's strconv.ParseInt(s, 10, ...) syntax: an optional sign, then ASCII digits. Python's
# int() takes more (white space, underscores, other scripts' digits).
GO_INTEGER = re.compile(r"[+-]?[0-9]+")
# Past this many significant digits a number is outside every int64 range. Python's int()
# refuses a string of more than 4300 digits (a ValueError: a 500) and is slow before that.
MAX_DIGITS = 19
PAST_INT64 = 10**MAX_DIGITS


def go_int(raw: str) -> int | None:
    """`raw` as a Go service reads a base-10 number, or None when Go reads none there.
    A longer number than int64 holds is +-PAST_INT64 (callers refuse it as out of range,
    as Go's ParseInt does), however many digits it has."""
    if not GO_INTEGER.fullmatch(raw):
        return None
    # Leading zeros count towards int()'s bound too: they are dropped first.
    digits = raw.lstrip("+-").lstrip("0")
    value = PAST_INT64 if len(digits) > MAX_DIGITS else int(digits or "0")
    return -value if raw.startswith("-") else value
