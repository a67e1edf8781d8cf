import django.db.models.deletion
from django.db import migrations, models

from config.vendor_sql import PostgresOnlySQL, count_triggers

TABLE = "codehost_ownerrepositorycount"


class Migration(migrations.Migration):
    dependencies = [("codehost", "0008_repo_keyword_fts_sqlite")]

    # Each owner's public and private repository counts, kept by triggers on every write
    # that adds, removes, transfers or hides a repository (the ORM, a cascade, raw SQL), so
    # a search without filters adds up a few rows per owner instead of counting every
    # repository. A table rebuilt by a later schema change on SQLite loses its triggers:
    # the code hosting's tests check the counts follow those writes.
    operations = [
        migrations.CreateModel(
            name="OwnerRepositoryCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("private", models.BooleanField()),
                ("repository_count", models.BigIntegerField(default=0)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="codehost.owner",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("owner", "private"), name="codehost_repo_count_unique"
                    )
                ],
            },
        ),
        *count_triggers(
            "codehost_repository", TABLE, ["owner_id", "private"], "codehost_repository_count"
        ),
        # A keyword search reads names, topics, owners and the private flag of many
        # repositories, in name order: PostgreSQL's planner took a scan of the wide table
        # over the trigram indexes for a word matching one repository in eight; this narrow
        # index (SQLite's is 0007's) answers the count by an index-only scan.
        PostgresOnlySQL(
            "CREATE INDEX codehost_repo_keyword_pg ON codehost_repository "
            "(lower_name, id) INCLUDE (topics_index, owner_id, private)",
            reverse_sql="DROP INDEX codehost_repo_keyword_pg",
        ),
    ]
