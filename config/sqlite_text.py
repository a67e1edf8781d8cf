"""SQLite refuses a text holding NUL as PostgreSQL does.

PostgreSQL cannot hold a NUL in text: a query given one fails with a DataError, which
the APIs answer as bad input. SQLite would store it, and its LIKE reads a NUL as the
pattern's end (`name=~a\\0` matched every name starting with `a`). The same DataError on
SQLite keeps the two databases' answers alike, for filters and for writes.
"""

from django.db import DataError
from django.db.backends.signals import connection_created
from django.dispatch import receiver

MESSAGE = "text parameters cannot contain NUL (0x00) characters"


def refuse_nul_text(execute, sql, params, many, context):
    for row in params if many else (params,):
        values = row.values() if isinstance(row, dict) else row or ()
        if any(type(value) is str and "\x00" in value for value in values):
            raise DataError(MESSAGE)
    return execute(sql, params, many, context)


@receiver(connection_created)
def _wrap(sender, connection, **kwargs):
    if connection.vendor == "sqlite" and refuse_nul_text not in connection.execute_wrappers:
        connection.execute_wrappers.append(refuse_nul_text)
