"""SQLite's candidates for a substring of repository names.

The FTS5 trigram table of repository names (migration 0008) gives the candidates of a
term of 3 characters or more, a superset (its case folding is Unicode's); the LIKE then
decides with SQLite's own case rule. PostgreSQL's trigram index serves the LIKE itself.

FTS5 reads every trigram of a phrase in full. A term's trigrams are often in most names
("rep" and "epo" of "repo042" are in all 100,000 of them): reading those took 3 ms of a
4 ms lookup, to find what its two rarest trigrams alone find in 0.5. So an ASCII term's
query is its two rarest trigrams, by the number of names holding each, counted by the
table's vocabulary (migration 0012) and remembered per process for a while: how rare a
trigram is changes slowly, and a stale count only makes a lookup slower, never wrong
(any of a term's trigrams is in every name holding the term). A non-ASCII term keeps
the whole phrase: Python's lowercasing is not FTS5's Unicode folding.
"""

import time

from django.db import connection

from config.vendor_sql import fts5_string

CANDIDATES_SQL = (
    "SELECT rowid FROM registry_repository_name_fts WHERE registry_repository_name_fts MATCH %s"
)
# One lookup per trigram (`term IN (...)` reads the whole vocabulary).
_NAMES_HOLDING_SQL = "SELECT term, doc FROM registry_repository_name_vocab WHERE term = %s"

# trigram: (names holding it, when counted), per process.
_counts: dict[str, tuple[int, float]] = {}
COUNT_LIFETIME = 600.0
COUNTS_KEPT = 4096
TRIGRAMS_QUERIED = 2
# A long term's trigrams weighed, spread over it: each one's first count reads its list.
TRIGRAMS_WEIGHED = 8


def candidates_query(term: str) -> str:
    """The trigram table's query for `term`: "" off SQLite or under 3 characters."""
    if connection.vendor != "sqlite" or len(term) < 3:
        return ""
    if not term.isascii():
        return fts5_string(term)
    folded = term.lower()
    starts = range(len(folded) - 2)
    if len(starts) > TRIGRAMS_WEIGHED:
        step = (len(starts) - 1) / (TRIGRAMS_WEIGHED - 1)
        starts = [round(n * step) for n in range(TRIGRAMS_WEIGHED)]
    trigrams = {folded[start : start + 3] for start in starts}
    if len(trigrams) <= TRIGRAMS_QUERIED:
        return fts5_string(term)
    counts = _names_holding(trigrams)
    rarest = sorted(trigrams, key=lambda trigram: (counts[trigram], trigram))
    return " AND ".join(fts5_string(trigram) for trigram in sorted(rarest[:TRIGRAMS_QUERIED]))


def _names_holding(trigrams: set[str]) -> dict[str, int]:
    """How many names hold each of `trigrams`: remembered ones, the others in one query."""
    now = time.monotonic()
    counts, missing = {}, []
    for trigram in trigrams:
        counted = _counts.get(trigram)
        if counted is not None and now - counted[1] < COUNT_LIFETIME:
            counts[trigram] = counted[0]
        else:
            missing.append(trigram)
    if missing:
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join([_NAMES_HOLDING_SQL] * len(missing)), missing)
            found = dict(cursor.fetchall())
        if len(_counts) + len(missing) > COUNTS_KEPT:
            _counts.clear()
        for trigram in missing:
            counts[trigram] = found.get(trigram, 0)
            _counts[trigram] = (counts[trigram], now)
    return counts
