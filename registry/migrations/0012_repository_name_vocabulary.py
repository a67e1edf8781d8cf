from django.db import migrations

from config.vendor_sql import SQLiteOnlySQL


class Migration(migrations.Migration):
    dependencies = [("registry", "0011_search_index_without_pending_list")]

    # How many repository names hold each trigram, read from the trigram table itself
    # (registry.name_search picks a term's rarest trigrams by it).
    operations = [
        SQLiteOnlySQL(
            "CREATE VIRTUAL TABLE registry_repository_name_vocab USING "
            "fts5vocab(registry_repository_name_fts, row)",
            reverse_sql="DROP TABLE registry_repository_name_vocab",
        )
    ]
