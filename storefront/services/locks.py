"""Rows read again under their lock by the write that changes them.

A view reads the row, then the service writes it; another request may delete it in
between. Saving the instance read before would insert the deleted row again (Django's
save() inserts when its UPDATE finds no row), and a lookup by `.get()` would be a 500.
"""

from storefront.errors import Missing


def locked(rows, pk: int, kind: str):
    """Row `pk` of `rows` as it is now, locked until the transaction ends; Missing (the
    API's 404, "<kind> with such id does not exist") when it is gone."""
    found = rows.select_for_update().filter(pk=pk).first()
    if found is None:
        raise Missing(f"{kind} with such id does not exist")
    return found
