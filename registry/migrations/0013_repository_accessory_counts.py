from django.db import migrations, models

from config.vendor_sql import PostgresOnlySQL, SQLiteOnlySQL

TABLE = "registry_repositoryartifactcount"
REFERRERS = "registry_referrer"
ARTIFACTS = "registry_artifact"

# An accessory is an artifact with a referrer row: counted once both exist, whichever is
# written first, and uncounted when the first of the two goes (the ORM deletes the referrer
# first, raw SQL may delete the artifact first): exact in every order.
ADD_REFERRER = (
    f"INSERT INTO {TABLE} (repository_id, accessory_count) "
    f"SELECT repository_id, 1 FROM {ARTIFACTS} WHERE id = new.artifact_id "
    f"ON CONFLICT (repository_id) DO UPDATE SET accessory_count = {TABLE}.accessory_count + 1"
)
TAKE_REFERRER = (
    f"UPDATE {TABLE} SET accessory_count = accessory_count - 1 "
    f"WHERE repository_id = (SELECT repository_id FROM {ARTIFACTS} WHERE id = old.artifact_id)"
)
ADD_ARTIFACT = (
    f"INSERT INTO {TABLE} (repository_id, accessory_count) SELECT new.repository_id, 1 "
    f"WHERE EXISTS (SELECT 1 FROM {REFERRERS} WHERE artifact_id = new.id) "
    f"ON CONFLICT (repository_id) DO UPDATE SET accessory_count = {TABLE}.accessory_count + 1"
)
TAKE_ARTIFACT = (
    f"UPDATE {TABLE} SET accessory_count = accessory_count - 1 "
    f"WHERE repository_id = old.repository_id "
    f"AND EXISTS (SELECT 1 FROM {REFERRERS} WHERE artifact_id = old.id)"
)


def pg_function(name: str, take: str, add: str) -> str:
    return (
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_OP <> 'INSERT' THEN {take}; END IF; "
        f"IF TG_OP <> 'DELETE' THEN {add}; END IF; "
        "RETURN NULL; END $$"
    )


class Migration(migrations.Migration):
    dependencies = [("registry", "0012_repository_name_vocabulary")]

    # How many of a repository's artifacts are accessories (pushed with a `subject`: a
    # Referrer row), kept by triggers on every write, so that artifact_count, which Harbor
    # counts without them, stays a kept count (RepositoryArtifactCount). A constant
    # default: both databases add the column in place (SQLite would rebuild the table).
    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f"ALTER TABLE {TABLE} ADD COLUMN accessory_count bigint NOT NULL DEFAULT 0",
                    reverse_sql=f"ALTER TABLE {TABLE} DROP COLUMN accessory_count",
                )
            ],
            state_operations=[
                migrations.AddField(
                    model_name="repositoryartifactcount",
                    name="accessory_count",
                    field=models.BigIntegerField(db_default=0),
                )
            ],
        ),
        PostgresOnlySQL(
            [
                pg_function("registry_accessory_count_referrer", TAKE_REFERRER, ADD_REFERRER),
                "CREATE TRIGGER registry_accessory_count_referrer AFTER INSERT OR DELETE ON "
                f"{REFERRERS} FOR EACH ROW EXECUTE FUNCTION registry_accessory_count_referrer()",
                "CREATE TRIGGER registry_accessory_count_referrer_move AFTER UPDATE OF "
                f"artifact_id ON {REFERRERS} FOR EACH ROW WHEN "
                "(old.artifact_id IS DISTINCT FROM new.artifact_id) "
                "EXECUTE FUNCTION registry_accessory_count_referrer()",
                pg_function("registry_accessory_count_artifact", TAKE_ARTIFACT, ADD_ARTIFACT),
                "CREATE TRIGGER registry_accessory_count_artifact AFTER INSERT OR DELETE ON "
                f"{ARTIFACTS} FOR EACH ROW EXECUTE FUNCTION registry_accessory_count_artifact()",
                "CREATE TRIGGER registry_accessory_count_artifact_move AFTER UPDATE OF "
                f"repository_id ON {ARTIFACTS} FOR EACH ROW WHEN "
                "(old.repository_id IS DISTINCT FROM new.repository_id) "
                "EXECUTE FUNCTION registry_accessory_count_artifact()",
            ],
            reverse_sql=[
                f"DROP TRIGGER registry_accessory_count_artifact_move ON {ARTIFACTS}",
                f"DROP TRIGGER registry_accessory_count_artifact ON {ARTIFACTS}",
                "DROP FUNCTION registry_accessory_count_artifact()",
                f"DROP TRIGGER registry_accessory_count_referrer_move ON {REFERRERS}",
                f"DROP TRIGGER registry_accessory_count_referrer ON {REFERRERS}",
                "DROP FUNCTION registry_accessory_count_referrer()",
            ],
        ),
        SQLiteOnlySQL(
            [
                f"CREATE TRIGGER registry_accessory_count_referrer_add AFTER INSERT ON "
                f"{REFERRERS} BEGIN {ADD_REFERRER}; END",
                f"CREATE TRIGGER registry_accessory_count_referrer_remove AFTER DELETE ON "
                f"{REFERRERS} BEGIN {TAKE_REFERRER}; END",
                f"CREATE TRIGGER registry_accessory_count_referrer_move AFTER UPDATE OF "
                f"artifact_id ON {REFERRERS} WHEN old.artifact_id IS NOT new.artifact_id "
                f"BEGIN {TAKE_REFERRER}; {ADD_REFERRER}; END",
                f"CREATE TRIGGER registry_accessory_count_artifact_add AFTER INSERT ON "
                f"{ARTIFACTS} BEGIN {ADD_ARTIFACT}; END",
                f"CREATE TRIGGER registry_accessory_count_artifact_remove AFTER DELETE ON "
                f"{ARTIFACTS} BEGIN {TAKE_ARTIFACT}; END",
                f"CREATE TRIGGER registry_accessory_count_artifact_move AFTER UPDATE OF "
                f"repository_id ON {ARTIFACTS} WHEN old.repository_id IS NOT new.repository_id "
                f"BEGIN {TAKE_ARTIFACT}; {ADD_ARTIFACT}; END",
            ],
            reverse_sql=[
                "DROP TRIGGER registry_accessory_count_artifact_move",
                "DROP TRIGGER registry_accessory_count_artifact_remove",
                "DROP TRIGGER registry_accessory_count_artifact_add",
                "DROP TRIGGER registry_accessory_count_referrer_move",
                "DROP TRIGGER registry_accessory_count_referrer_remove",
                "DROP TRIGGER registry_accessory_count_referrer_add",
            ],
        ),
        migrations.RunSQL(
            f"UPDATE {TABLE} SET accessory_count = (SELECT COUNT(*) FROM {REFERRERS} r "
            f"JOIN {ARTIFACTS} a ON a.id = r.artifact_id "
            f"WHERE a.repository_id = {TABLE}.repository_id)",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
