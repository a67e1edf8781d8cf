"""Cursors whose statements PostgreSQL parses and plans once per connection.

Django binds parameters client-side and never prepares: every statement is parsed,
analyzed and planned on each run. For the few long statements every store request runs
(the token lookup, a product page's JSON) that work cost PostgreSQL more CPU than
running them on a page of 30 products. Through `cursor`, their fixed text is prepared on
its first run on a connection (psycopg's `prepare=True`; the parameters travel apart)
and PostgreSQL settles on one generic plan. A closed connection takes its prepared
statements with it; the next one prepares them again. psycopg also forgets them after a
ROLLBACK, DROP or ALTER on the connection (deallocated, prepared again on their next
run), so a rolled-back transaction or a migration never meets a stale statement.
Prepared statements need the session: they assume direct connections, as configured,
not a transaction-pooling proxy.

The cursor is Django's wrapper: its statements are logged, counted and seen by
`execute_wrappers` as any other. SQLite gets Django's own cursor.
"""

import psycopg
from django.db import connection as default_connection

# psycopg prepares a statement run this many times on the connection without being
# asked; Django turns preparing off (None), which `prepare=True` cannot override. Django's
# own cursors bind client-side and never prepare, so only `cursor` statements are.
_ONLY_WHEN_ASKED = 2**31


class _PreparedCursor(psycopg.Cursor):
    def execute(self, query, params=None, **options):
        return super().execute(query, params, prepare=True, **options)


def cursor(binary: bool = False, connection=default_connection):
    """A cursor preparing what it runs (PostgreSQL), results in the binary format if
    `binary` (a bytea column comes as its bytes, not as hexadecimal text to decode)."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw = connection.connection
    if raw.prepare_threshold is None:
        raw.prepare_threshold = _ONLY_WHEN_ASKED
    prepared = _PreparedCursor(raw)
    if binary:
        prepared.format = psycopg.pq.Format.BINARY
    if connection.queries_logged:
        return connection.make_debug_cursor(prepared)
    return connection.make_cursor(prepared)
