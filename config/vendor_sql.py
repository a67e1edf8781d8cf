"""Migration operations that apply on one database only. They change no model state: the
indexes they make speed up keyword search (`LIKE '%q%'`) and are invisible to the ORM.
`count_triggers`: per-parent row counts kept by triggers on both databases. And
`Unindexed`, a column SQLite must not look up through an index.

PostgreSQL answers a keyword through trigram GIN indexes. SQLite has no such index: the
code hosting's search scans a narrow covering index instead of the table's wide rows, and
the registry's repository names have an FTS5 trigram table (a substring filter before
the exact LIKE).
"""

from django.db import migrations
from django.db.models import Func


class VendorSQL(migrations.RunSQL):
    vendor = ""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class PostgresOnlySQL(VendorSQL):
    vendor = "postgresql"


class SQLiteOnlySQL(VendorSQL):
    vendor = "sqlite"


def fts5_string(text: str) -> str:
    """`text` as an FTS5 string: in double quotes, each quote in it doubled, so that none of
    it is read as an operator or a column filter."""
    return '"' + text.replace('"', '""') + '"'


def sqlite_trigram_table(table: str, fts: str, columns: list[str]) -> SQLiteOnlySQL:
    """An FTS5 trigram table `fts` over `columns` of `table` (external content: it holds
    the index only), filled now and kept by triggers on every write to those columns.
    A table rebuilt by a later schema change on SQLite loses its triggers: each app tests
    that its table follows creations, renames and deletions."""
    listed = ", ".join(columns)
    new = ", ".join(["new.id", *(f"new.{c}" for c in columns)])
    old = ", ".join(["old.id", *(f"old.{c}" for c in columns)])
    return SQLiteOnlySQL(
        [
            f"CREATE VIRTUAL TABLE {fts} USING fts5({listed}, content='{table}', "
            "content_rowid='id', tokenize='trigram')",
            f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN "
            f"INSERT INTO {fts}(rowid, {listed}) VALUES ({new}); END",
            f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, {listed}) VALUES ('delete', {old}); END",
            f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {listed} ON {table} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, {listed}) VALUES ('delete', {old}); "
            f"INSERT INTO {fts}(rowid, {listed}) VALUES ({new}); END",
            f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
        ],
        reverse_sql=[
            f"DROP TRIGGER {fts}_insert",
            f"DROP TRIGGER {fts}_delete",
            f"DROP TRIGGER {fts}_update",
            f"DROP TABLE {fts}",
        ],
    )


def search_gin_without_pending_list(*indexes: str) -> PostgresOnlySQL:
    """The trigram GIN `indexes` written through on every insert (`fastupdate = off`), and
    their pending list flushed now. With the default, new entries wait in an unsorted
    pending list until a vacuum; the planner prices every search at scanning that list, and
    after a burst of inserts (a migration, a mirror, a seeding) chose reading the whole
    table: 40 ms instead of 3 at 100,000 repository names. A search index is read far more
    often than a name is created."""
    return PostgresOnlySQL(
        [f"ALTER INDEX {index} SET (fastupdate = off)" for index in indexes]
        + [f"SELECT gin_clean_pending_list('{index}'::regclass)" for index in indexes],
        reverse_sql=[f"ALTER INDEX {index} RESET (fastupdate)" for index in indexes],
    )


def count_triggers(
    table: str, counts: str, keys: list[str], name: str, column: str = "repository_count"
) -> list:
    """Operations keeping `counts` (a row per value of `keys`, and its `column`)
    equal to the number of `table`'s rows of each value, by triggers on every write that
    adds, removes or moves a row (the ORM, a cascade, raw SQL alike), then filled once.
    `name` prefixes the triggers (and PostgreSQL's function). A table rebuilt by a later
    schema change on SQLite loses its triggers: each app tests its counts follow writes."""
    listed = ", ".join(keys)
    news = ", ".join(f"new.{key}" for key in keys)
    add_one = (
        f"INSERT INTO {counts} ({listed}, {column}) VALUES ({news}, 1) "
        f"ON CONFLICT ({listed}) DO UPDATE SET {column} = {counts}.{column} + 1"
    )
    # A row whose parent is deleted with it may find the parent's count gone: no update.
    matched = " AND ".join(f"{key} = old.{key}" for key in keys)
    take_one = f"UPDATE {counts} SET {column} = {column} - 1 WHERE {matched}"
    moved_pg = " OR ".join(f"old.{key} IS DISTINCT FROM new.{key}" for key in keys)
    moved_sqlite = " OR ".join(f"old.{key} IS NOT new.{key}" for key in keys)
    return [
        PostgresOnlySQL(
            [
                f"CREATE FUNCTION {name}_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"IF TG_OP <> 'INSERT' THEN {take_one}; END IF; "
                f"IF TG_OP <> 'DELETE' THEN {add_one}; END IF; "
                "RETURN NULL; END $$",
                f"CREATE TRIGGER {name}_add_remove AFTER INSERT OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {name}_keep()",
                f"CREATE TRIGGER {name}_move AFTER UPDATE OF {listed} ON {table} FOR EACH ROW "
                f"WHEN ({moved_pg}) EXECUTE FUNCTION {name}_keep()",
            ],
            reverse_sql=[
                f"DROP TRIGGER {name}_move ON {table}",
                f"DROP TRIGGER {name}_add_remove ON {table}",
                f"DROP FUNCTION {name}_keep()",
            ],
        ),
        SQLiteOnlySQL(
            [
                f"CREATE TRIGGER {name}_add AFTER INSERT ON {table} BEGIN {add_one}; END",
                f"CREATE TRIGGER {name}_remove AFTER DELETE ON {table} BEGIN {take_one}; END",
                f"CREATE TRIGGER {name}_move AFTER UPDATE OF {listed} ON {table} "
                f"WHEN {moved_sqlite} BEGIN {take_one}; {add_one}; END",
            ],
            reverse_sql=[
                f"DROP TRIGGER {name}_move",
                f"DROP TRIGGER {name}_remove",
                f"DROP TRIGGER {name}_add",
            ],
        ),
        migrations.RunSQL(
            f"INSERT INTO {counts} ({listed}, {column}) "
            f"SELECT {listed}, COUNT(*) FROM {table} GROUP BY {listed}",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]


class Unindexed(Func):
    """A column SQLite must not look up through an index (`+column`; unchanged elsewhere),
    so that its planner takes another index: one that reads narrower rows (the code
    hosting's anonymous keyword search: its keyword index, count at 10,000 repositories
    6.6 -> 3.0 ms), or one in the list's order, walked until the page is full (the
    registry's visible repositories: a page at 100,000 ~75 -> ~1 ms, instead of sorting
    every visible repository)."""

    template = "%(expressions)s"
    arity = 1

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"+{sql}", params
