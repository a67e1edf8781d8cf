"""What a decoded JSON document may hold to be stored and sent back: no NUL character in
any string (PostgreSQL text and jsonb cannot hold one), no lone surrogate (`"\ud800"`
decodes to a string no UTF-8 answer can carry: stored, every later list holding it was a
500), and no deeper nesting than MAX_DEPTH (deeper would exhaust the interpreter's
recursion in a serializer or encoder).
No wire here: each front door turns a problem into its own error."""

import re

# No document of the three services nests anywhere near this deep.
MAX_DEPTH = 64

TOO_DEEP = "nested too deeply"
HOLDS_NUL = "strings must not contain NUL characters"
HOLDS_SURROGATE = "strings must not contain lone surrogates"
UNSTORABLE = (HOLDS_NUL, HOLDS_SURROGATE)
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def problem(value) -> str | None:
    """TOO_DEEP, HOLDS_NUL, HOLDS_SURROGATE or None; walked without recursion."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return HOLDS_NUL
            if not item.isascii() and LONE_SURROGATE.search(item):
                return HOLDS_SURROGATE
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return TOO_DEEP
            members = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((member, depth + 1) for member in members)
    return None
