from django.db import migrations

from config.vendor_sql import SQLiteOnlySQL

FTS = "codehost_repository_keyword_fts"
COLUMNS = "lower_name, topics_index, description"
NEW = "new.id, new.lower_name, new.topics_index, new.description"
OLD = "old.id, old.lower_name, old.topics_index, old.description"

# A keyword search (`LIKE '%kw%'` on names, topics, descriptions) read every visible
# repository on SQLite (10,000: a count ~20 ms): an FTS5 trigram table of those columns,
# kept by triggers, gives the candidates (PostgreSQL has trigram GIN indexes since 0002).
# A table rebuilt by a later schema change loses its triggers:
# tests/codehost/test_search_keyword_index.py checks the table stays in step.
SQLITE = [
    f"CREATE VIRTUAL TABLE {FTS} USING fts5({COLUMNS}, content='codehost_repository', "
    "content_rowid='id', tokenize='trigram')",
    f"CREATE TRIGGER {FTS}_insert AFTER INSERT ON codehost_repository BEGIN "
    f"INSERT INTO {FTS}(rowid, {COLUMNS}) VALUES ({NEW}); END",
    f"CREATE TRIGGER {FTS}_delete AFTER DELETE ON codehost_repository BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, {COLUMNS}) VALUES ('delete', {OLD}); END",
    f"CREATE TRIGGER {FTS}_update AFTER UPDATE OF {COLUMNS} ON codehost_repository BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, {COLUMNS}) VALUES ('delete', {OLD}); "
    f"INSERT INTO {FTS}(rowid, {COLUMNS}) VALUES ({NEW}); END",
    f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",
]


class Migration(migrations.Migration):
    dependencies = [("codehost", "0007_repo_keyword_index_sqlite")]

    operations = [
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
