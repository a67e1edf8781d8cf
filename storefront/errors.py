"""What the storefront's business rules refuse, in plain terms.

Each error has a `code` naming the kind of refusal, a `message` for people, and, when the
refusal is about given values, `fields` ({"field": ["message"]}). They know no HTTP: the
store API gives each code Tiendanube's status and body in one table
(`storefront.api.exceptions`); commands show the message.
"""


class StorefrontError(Exception):
    # Each kind below names its own; the API's table has a row per code.
    code: str

    def __init__(self, message: str = "", fields: dict[str, list[str]] | None = None):
        self.message = message
        self.fields = fields or {}
        super().__init__(message or _sentence(self.fields))


def _sentence(fields: dict[str, list[str]]) -> str:
    return "; ".join(f"{name}: {' '.join(messages)}" for name, messages in fields.items())


class Invalid(StorefrontError):
    """The given values break a rule: per field when `fields` says which (a SKU already
    taken), else as a whole (a limit reached, a repeated variant)."""

    code = "invalid"


class Malformed(StorefrontError):
    """A collection that is not of the expected shape (variants without their values)."""

    code = "malformed"


class ScopeMissing(StorefrontError):
    """The app was not granted the scope the change needs."""

    code = "scope_missing"


class AlreadyExists(StorefrontError):
    """The same thing exists already (one app's webhook for one url and event)."""

    code = "exists"


class Missing(StorefrontError):
    """The thing is not there (any more): deleted by a request that committed after this
    one had read it."""

    code = "missing"


class NotInstalled(StorefrontError):
    """The app is not installed in the store."""

    code = "not_installed"


class InvalidGrant(StorefrontError):
    """The authorization code is unknown, used, expired or was issued to another app."""

    code = "invalid_grant"
