from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("registry", "0013_repository_accessory_counts")]

    # A constant default: both databases add the column in place (SQLite would rebuild the
    # table and lose the triggers 0013 put on it).
    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE registry_referrer "
                    "ADD COLUMN accessory_type varchar(32) NOT NULL DEFAULT ''",
                    reverse_sql="ALTER TABLE registry_referrer DROP COLUMN accessory_type",
                )
            ],
            state_operations=[
                migrations.AddField(
                    model_name="referrer",
                    name="accessory_type",
                    field=models.CharField(blank=True, db_default="", max_length=32),
                )
            ],
        ),
    ]
