import django.db.models.deletion
from django.db import migrations, models

from config.vendor_sql import PostgresOnlySQL, SQLiteOnlySQL

TABLE = "registry_projectrepositorycount"
ADD_ONE = (
    f"INSERT INTO {TABLE} (project_id, repository_count) VALUES (new.project_id, 1) "
    f"ON CONFLICT (project_id) DO UPDATE SET repository_count = {TABLE}.repository_count + 1"
)
# A project deleted with its repositories may lose its row first: nothing to update then.
TAKE_ONE = (
    f"UPDATE {TABLE} SET repository_count = repository_count - 1 WHERE project_id = old.project_id"
)


class Migration(migrations.Migration):
    dependencies = [("registry", "0008_repository_name_search_index")]

    # Each project's repository count, kept by triggers on every write that adds, removes
    # or moves a repository (whoever writes it: the ORM, a cascade, raw SQL), so a list's
    # exact total adds up one row per visible project instead of counting its repositories.
    # A table rebuilt by a later schema change on SQLite loses its triggers: the registry's
    # tests check the count follows creations, moves and deletions.
    operations = [
        migrations.CreateModel(
            name="ProjectRepositoryCount",
            fields=[
                (
                    "project",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="registry.project",
                    ),
                ),
                ("repository_count", models.BigIntegerField(default=0)),
            ],
        ),
        PostgresOnlySQL(
            [
                "CREATE FUNCTION registry_repository_count_keep() RETURNS trigger "
                "LANGUAGE plpgsql AS $$ BEGIN "
                f"IF TG_OP <> 'INSERT' THEN {TAKE_ONE}; END IF; "
                f"IF TG_OP <> 'DELETE' THEN {ADD_ONE}; END IF; "
                "RETURN NULL; END $$",
                "CREATE TRIGGER registry_repository_count_add_remove "
                "AFTER INSERT OR DELETE ON registry_repository "
                "FOR EACH ROW EXECUTE FUNCTION registry_repository_count_keep()",
                "CREATE TRIGGER registry_repository_count_move "
                "AFTER UPDATE OF project_id ON registry_repository FOR EACH ROW "
                "WHEN (old.project_id IS DISTINCT FROM new.project_id) "
                "EXECUTE FUNCTION registry_repository_count_keep()",
            ],
            reverse_sql=[
                "DROP TRIGGER registry_repository_count_move ON registry_repository",
                "DROP TRIGGER registry_repository_count_add_remove ON registry_repository",
                "DROP FUNCTION registry_repository_count_keep()",
            ],
        ),
        SQLiteOnlySQL(
            [
                "CREATE TRIGGER registry_repository_count_add AFTER INSERT "
                f"ON registry_repository BEGIN {ADD_ONE}; END",
                "CREATE TRIGGER registry_repository_count_remove AFTER DELETE "
                f"ON registry_repository BEGIN {TAKE_ONE}; END",
                "CREATE TRIGGER registry_repository_count_move AFTER UPDATE OF project_id "
                "ON registry_repository WHEN old.project_id IS NOT new.project_id "
                f"BEGIN {TAKE_ONE}; {ADD_ONE}; END",
            ],
            reverse_sql=[
                "DROP TRIGGER registry_repository_count_move",
                "DROP TRIGGER registry_repository_count_remove",
                "DROP TRIGGER registry_repository_count_add",
            ],
        ),
        migrations.RunSQL(
            f"INSERT INTO {TABLE} (project_id, repository_count) "
            "SELECT project_id, COUNT(*) FROM registry_repository GROUP BY project_id",
            reverse_sql=migrations.RunSQL.noop,
        ),
        # The newest-first order with each entry's project: the page of what a caller may
        # see walks this index alone and stops at the page's end.
        migrations.RemoveIndex(model_name="repository", name="registry_re_creatio_cc45aa_idx"),
        migrations.AddIndex(
            model_name="repository",
            index=models.Index(
                fields=["-creation_time", "-id", "project"], name="registry_re_creatio_6dc04c_idx"
            ),
        ),
    ]
