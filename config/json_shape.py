"""What a decoded JSON document may hold to be stored and sent back: no NUL character in
any string (PostgreSQL text and jsonb cannot hold one) and no deeper nesting than
MAX_DEPTH (deeper would exhaust the interpreter's recursion in a serializer or encoder).
No wire here: each front door turns a problem into its own error."""

# No document of the three services nests anywhere near this deep.
MAX_DEPTH = 64

TOO_DEEP = "nested too deeply"
HOLDS_NUL = "strings must not contain NUL characters"


def problem(value) -> str | None:
    """TOO_DEEP, HOLDS_NUL or None; walked without recursion."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return HOLDS_NUL
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return TOO_DEEP
            members = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((member, depth + 1) for member in members)
    return None
