from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("registry", "0014_referrer_accessory_type")]

    # A database default: nodes still running the previous code during a rolling restart
    # insert links without the column.
    operations = [
        migrations.AddField(
            model_name="repositoryblob",
            name="released",
            field=models.BooleanField(db_default=False),
        )
    ]
