"""Rows read again under their lock by the write that changes them.

A view reads the row, then the service writes it; another request may delete it in
between. Saving the instance read before would insert the deleted row again (Django's
save() inserts when its UPDATE finds no row), and a lookup by `.get()` would be a 500.
"""

from storefront.errors import Missing


def locked(rows, pk: int, kind: str):
    """Row `pk` of `rows` as it is now, locked until the transaction ends; Missing (the
    API's 404, "<kind> with such id does not exist") when it is gone."""
    # The row alone (OF self): with select_related("store") PostgreSQL also locked the
    # store's row, after the product's, while category moves take the store first and
    # their products after (through the revision trigger): a deadlock.
    found = rows.select_for_update(of=("self",)).filter(pk=pk).first()
    if found is None:
        raise Missing(f"{kind} with such id does not exist")
    return found
