"""Products' JSON texts kept in the database (`ProductText`), read back by a page.

Writing 200 products' JSON in SQL cost a page of `per_page=200` 17 ms of CPU on SQLite
and 15 on PostgreSQL (web process and server), per request, while the products rarely
change between two reads. A page now reads each product's kept text and writes only the
texts it lacks, then keeps them.

A kept text is served only if the product's `revision`, which triggers raise on every
write to what the text holds, is still the one it was written at: a text written from
data a concurrent write has since changed carries the older revision and is never read.
Its `form` names what else it depends on (the rendering SQL, the store's languages, the
external URL, this code): any other form is written again.
"""

import logging

from django.db import DatabaseError, connection, transaction

from config import prepared
from config.kept import id_list, id_match
from storefront.models import Product, ProductText

logger = logging.getLogger(__name__)
_TEXTS = ProductText._meta.db_table
_PRODUCTS = Product._meta.db_table


def read(ids: list[int], form: str) -> dict[int, bytes]:
    """The kept texts of `ids` in `form` still at their product's revision."""
    sql = f"""SELECT t.product_id, t.body FROM "{_TEXTS}" t
        JOIN "{_PRODUCTS}" p ON p.id = t.product_id AND p.revision = t.revision
        WHERE {id_match("t.product_id", connection.vendor)} AND t.form = %s"""
    with prepared.cursor(binary=True) as cursor:
        cursor.execute(sql, [id_list(ids, connection.vendor), form])
        return {pk: bytes(body) for pk, body in cursor.fetchall()}


def keep(form: str, written: dict[int, tuple[int, bytes]]) -> None:
    """Keep the texts `written` ({product: (revision, text)}), unless one of a later
    revision is kept already. Keeping is a saving only: a failure (a product deleted
    meanwhile, a busy database) leaves the texts to be written again."""
    if not written:
        return
    rows = sorted(written.items())  # in id order: concurrent pages lock rows alike
    values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
    params = [value for pk, (revision, text) in rows for value in (pk, revision, form, text)]
    sql = f"""INSERT INTO "{_TEXTS}" (product_id, revision, form, body) VALUES {values}
        ON CONFLICT (product_id) DO UPDATE SET revision = excluded.revision,
        form = excluded.form, body = excluded.body
        WHERE "{_TEXTS}".revision <= excluded.revision"""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    except DatabaseError as error:
        logger.info("product texts not kept: %s", type(error).__name__)
