import django.db.models.deletion
from django.db import migrations, models

from config.vendor_sql import PostgresOnlySQL, SQLiteOnlySQL

TABLE = "codehost_ownerrepositorycount"
ADD_ONE = (
    f"INSERT INTO {TABLE} (owner_id, private, repository_count) "
    "VALUES (new.owner_id, new.private, 1) "
    f"ON CONFLICT (owner_id, private) DO UPDATE SET repository_count = {TABLE}.repository_count + 1"
)
# An owner deleted with its repositories may lose its rows first: nothing to update then.
TAKE_ONE = (
    f"UPDATE {TABLE} SET repository_count = repository_count - 1 "
    "WHERE owner_id = old.owner_id AND private = old.private"
)


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
        PostgresOnlySQL(
            [
                "CREATE FUNCTION codehost_repository_count_keep() RETURNS trigger "
                "LANGUAGE plpgsql AS $$ BEGIN "
                f"IF TG_OP <> 'INSERT' THEN {TAKE_ONE}; END IF; "
                f"IF TG_OP <> 'DELETE' THEN {ADD_ONE}; END IF; "
                "RETURN NULL; END $$",
                "CREATE TRIGGER codehost_repository_count_add_remove "
                "AFTER INSERT OR DELETE ON codehost_repository "
                "FOR EACH ROW EXECUTE FUNCTION codehost_repository_count_keep()",
                "CREATE TRIGGER codehost_repository_count_move "
                "AFTER UPDATE OF owner_id, private ON codehost_repository FOR EACH ROW "
                "WHEN (old.owner_id IS DISTINCT FROM new.owner_id "
                "OR old.private IS DISTINCT FROM new.private) "
                "EXECUTE FUNCTION codehost_repository_count_keep()",
            ],
            reverse_sql=[
                "DROP TRIGGER codehost_repository_count_move ON codehost_repository",
                "DROP TRIGGER codehost_repository_count_add_remove ON codehost_repository",
                "DROP FUNCTION codehost_repository_count_keep()",
            ],
        ),
        SQLiteOnlySQL(
            [
                "CREATE TRIGGER codehost_repository_count_add AFTER INSERT "
                f"ON codehost_repository BEGIN {ADD_ONE}; END",
                "CREATE TRIGGER codehost_repository_count_remove AFTER DELETE "
                f"ON codehost_repository BEGIN {TAKE_ONE}; END",
                "CREATE TRIGGER codehost_repository_count_move "
                "AFTER UPDATE OF owner_id, private ON codehost_repository "
                "WHEN old.owner_id IS NOT new.owner_id OR old.private IS NOT new.private "
                f"BEGIN {TAKE_ONE}; {ADD_ONE}; END",
            ],
            reverse_sql=[
                "DROP TRIGGER codehost_repository_count_move",
                "DROP TRIGGER codehost_repository_count_remove",
                "DROP TRIGGER codehost_repository_count_add",
            ],
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
        migrations.RunSQL(
            f"INSERT INTO {TABLE} (owner_id, private, repository_count) "
            "SELECT owner_id, private, COUNT(*) FROM codehost_repository "
            "GROUP BY owner_id, private",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
