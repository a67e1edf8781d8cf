from django.db import migrations

from config.vendor_sql import PostgresOnlySQL, SQLiteOnlySQL

FTS = "registry_repository_name_fts"

# Harbor's search matches repository names by substring (`LIKE '%q%'`): without an index
# that reads every repository (100,000: ~65 ms on SQLite). PostgreSQL: a trigram GIN index
# on the expression the ORM's icontains compares. SQLite: an FTS5 trigram table over the
# names, kept by triggers (a table rebuilt by a later schema change loses its triggers:
# tests/registry/test_search_index.py checks the table stays in step).
SQLITE = [
    f"CREATE VIRTUAL TABLE {FTS} USING fts5(name, content='registry_repository', "
    "content_rowid='id', tokenize='trigram')",
    f"CREATE TRIGGER {FTS}_insert AFTER INSERT ON registry_repository BEGIN "
    f"INSERT INTO {FTS}(rowid, name) VALUES (new.id, new.name); END",
    f"CREATE TRIGGER {FTS}_delete AFTER DELETE ON registry_repository BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, name) VALUES ('delete', old.id, old.name); END",
    f"CREATE TRIGGER {FTS}_update AFTER UPDATE OF name ON registry_repository BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, name) VALUES ('delete', old.id, old.name); "
    f"INSERT INTO {FTS}(rowid, name) VALUES (new.id, new.name); END",
    f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",
]


class Migration(migrations.Migration):
    dependencies = [("registry", "0007_blob_object_name")]

    operations = [
        PostgresOnlySQL(
            "CREATE EXTENSION IF NOT EXISTS pg_trgm", reverse_sql=migrations.RunSQL.noop
        ),
        PostgresOnlySQL(
            "CREATE INDEX registry_repository_name_trgm ON registry_repository "
            "USING gin (UPPER(name::text) gin_trgm_ops)",
            reverse_sql="DROP INDEX registry_repository_name_trgm",
        ),
        SQLiteOnlySQL(
            SQLITE,
            reverse_sql=[
                f"DROP TRIGGER {FTS}_insert",
                f"DROP TRIGGER {FTS}_delete",
                f"DROP TRIGGER {FTS}_update",
                f"DROP TABLE {FTS}",
            ],
        ),
    ]
