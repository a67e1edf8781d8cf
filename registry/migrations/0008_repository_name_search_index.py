from django.db import migrations

from config.vendor_sql import PostgresOnlySQL, sqlite_trigram_table


class Migration(migrations.Migration):
    dependencies = [("registry", "0007_blob_object_name")]

    # Harbor's search matches repository names by substring (`LIKE '%q%'`): without an
    # index that reads every repository (100,000: ~65 ms on SQLite). PostgreSQL: a trigram
    # GIN index on the expression the ORM's icontains compares; SQLite: a trigram table.
    operations = [
        PostgresOnlySQL(
            "CREATE EXTENSION IF NOT EXISTS pg_trgm", reverse_sql=migrations.RunSQL.noop
        ),
        PostgresOnlySQL(
            "CREATE INDEX registry_repository_name_trgm ON registry_repository "
            "USING gin (UPPER(name::text) gin_trgm_ops)",
            reverse_sql="DROP INDEX registry_repository_name_trgm",
        ),
        sqlite_trigram_table("registry_repository", "registry_repository_name_fts", ["name"]),
    ]
