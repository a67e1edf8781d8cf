from django.db import migrations

from config.vendor_sql import sqlite_trigram_table


class Migration(migrations.Migration):
    dependencies = [("codehost", "0007_repo_keyword_index_sqlite")]

    operations = [
        # A keyword search (`LIKE '%kw%'` on names, topics, descriptions) read every visible
        # repository on SQLite (10,000: a count ~20 ms); the trigram table gives the
        # candidates (PostgreSQL has trigram GIN indexes since 0002).
        sqlite_trigram_table(
            "codehost_repository",
            "codehost_repository_keyword_fts",
            ["lower_name", "topics_index", "description"],
        ),
    ]
