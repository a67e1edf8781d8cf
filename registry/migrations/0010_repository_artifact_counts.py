import django.db.models.deletion
from django.db import migrations, models

from config.vendor_sql import PostgresOnlySQL, SQLiteOnlySQL, count_triggers

TABLE = "registry_repositoryartifactcount"
REFERENCES = "registry_artifactreference"
ARTIFACTS = "registry_artifact"

# A reference naming a child adds one to the child's repository, removing it takes one
# off. A lookup that finds no child (deleted before its references in one transaction)
# leaves the count high, which only costs the exact count: never one too low.
ADD_CHILD = (
    f"INSERT INTO {TABLE} (repository_id, child_count) "
    f"SELECT repository_id, 1 FROM {ARTIFACTS} WHERE id = new.child_id "
    f"ON CONFLICT (repository_id) DO UPDATE SET child_count = {TABLE}.child_count + 1"
)
TAKE_CHILD = (
    f"UPDATE {TABLE} SET child_count = child_count - 1 "
    f"WHERE repository_id = (SELECT repository_id FROM {ARTIFACTS} WHERE id = old.child_id)"
)
# An artifact moved to another repository takes the references naming it along.
NAMING = f"(SELECT COUNT(*) FROM {REFERENCES} WHERE child_id = new.id)"
MOVE_OUT = (
    f"UPDATE {TABLE} SET child_count = child_count - {NAMING} "
    "WHERE repository_id = old.repository_id"
)
MOVE_IN = (
    f"INSERT INTO {TABLE} (repository_id, child_count) SELECT new.repository_id, {NAMING} "
    "WHERE true "  # SQLite: the upsert after a SELECT needs its WHERE
    f"ON CONFLICT (repository_id) DO UPDATE SET child_count = {TABLE}.child_count + "
    "excluded.child_count"
)


class Migration(migrations.Migration):
    dependencies = [("registry", "0009_repository_counts_and_order_index")]

    # Each repository's artifacts, and the references naming one of them as a child, kept
    # by triggers on every write (see RepositoryArtifactCount). A table rebuilt by a later
    # schema change on SQLite loses its triggers: the registry's tests check both counts
    # follow pushes, references, deletions and moves.
    operations = [
        migrations.CreateModel(
            name="RepositoryArtifactCount",
            fields=[
                (
                    "repository",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="registry.repository",
                    ),
                ),
                ("artifact_count", models.BigIntegerField(db_default=0)),
                ("child_count", models.BigIntegerField(db_default=0)),
            ],
        ),
        *count_triggers(
            ARTIFACTS, TABLE, ["repository_id"], "registry_artifact_count", "artifact_count"
        ),
        PostgresOnlySQL(
            [
                "CREATE FUNCTION registry_child_count_keep() RETURNS trigger LANGUAGE plpgsql "
                "AS $$ BEGIN "
                f"IF TG_OP <> 'INSERT' THEN IF old.child_id IS NOT NULL THEN {TAKE_CHILD}; "
                "END IF; END IF; "
                f"IF TG_OP <> 'DELETE' THEN IF new.child_id IS NOT NULL THEN {ADD_CHILD}; "
                "END IF; END IF; "
                "RETURN NULL; END $$",
                "CREATE TRIGGER registry_child_count_add_remove AFTER INSERT OR DELETE ON "
                f"{REFERENCES} FOR EACH ROW EXECUTE FUNCTION registry_child_count_keep()",
                f"CREATE TRIGGER registry_child_count_change AFTER UPDATE OF child_id ON "
                f"{REFERENCES} FOR EACH ROW WHEN (old.child_id IS DISTINCT FROM new.child_id) "
                "EXECUTE FUNCTION registry_child_count_keep()",
                "CREATE FUNCTION registry_child_count_move() RETURNS trigger LANGUAGE plpgsql "
                f"AS $$ BEGIN {MOVE_OUT}; {MOVE_IN}; RETURN NULL; END $$",
                f"CREATE TRIGGER registry_child_count_move AFTER UPDATE OF repository_id ON "
                f"{ARTIFACTS} FOR EACH ROW WHEN (old.repository_id IS DISTINCT FROM "
                "new.repository_id) EXECUTE FUNCTION registry_child_count_move()",
            ],
            reverse_sql=[
                f"DROP TRIGGER registry_child_count_move ON {ARTIFACTS}",
                "DROP FUNCTION registry_child_count_move()",
                f"DROP TRIGGER registry_child_count_change ON {REFERENCES}",
                f"DROP TRIGGER registry_child_count_add_remove ON {REFERENCES}",
                "DROP FUNCTION registry_child_count_keep()",
            ],
        ),
        SQLiteOnlySQL(
            [
                f"CREATE TRIGGER registry_child_count_add AFTER INSERT ON {REFERENCES} "
                f"BEGIN {ADD_CHILD}; END",
                f"CREATE TRIGGER registry_child_count_remove AFTER DELETE ON {REFERENCES} "
                f"BEGIN {TAKE_CHILD}; END",
                f"CREATE TRIGGER registry_child_count_change AFTER UPDATE OF child_id ON "
                f"{REFERENCES} WHEN old.child_id IS NOT new.child_id "
                f"BEGIN {TAKE_CHILD}; {ADD_CHILD}; END",
                f"CREATE TRIGGER registry_child_count_move AFTER UPDATE OF repository_id ON "
                f"{ARTIFACTS} WHEN old.repository_id IS NOT new.repository_id "
                f"BEGIN {MOVE_OUT}; {MOVE_IN}; END",
            ],
            reverse_sql=[
                "DROP TRIGGER registry_child_count_move",
                "DROP TRIGGER registry_child_count_change",
                "DROP TRIGGER registry_child_count_remove",
                "DROP TRIGGER registry_child_count_add",
            ],
        ),
        migrations.RunSQL(
            f"INSERT INTO {TABLE} (repository_id, child_count) "
            f"SELECT a.repository_id, COUNT(*) FROM {REFERENCES} r "
            f"JOIN {ARTIFACTS} a ON a.id = r.child_id WHERE true GROUP BY a.repository_id "
            f"ON CONFLICT (repository_id) DO UPDATE SET child_count = excluded.child_count",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
