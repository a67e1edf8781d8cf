"""Integer bounds of the modelled services' wire types, defined once for all three apps.

Harbor and Gitea are Go (`int64` ids, `int` page numbers) and Tiendanube keeps ids in
BIGINT columns: a number past these bounds is refused as bad input, never sent on to the
database, where it would overflow (a 500).
"""

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
