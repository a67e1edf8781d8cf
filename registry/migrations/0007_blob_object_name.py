"""Blob rows name their object: existing rows get the content address their bytes are
stored at (`blobs/<algorithm>/<first two hex>/<hex>`), so stored blobs keep pulling."""

from django.db import migrations, models
from django.db.models import Value
from django.db.models.functions import Concat, StrIndex, Substr


def name_existing_objects(apps, schema_editor):
    Blob = apps.get_model("registry", "Blob")
    # One UPDATE on either backend: the digest is `<algorithm>:<hex>`.
    colon = StrIndex("digest", Value(":"))
    Blob.objects.update(
        object_name=Concat(
            Value("blobs/"),
            Substr("digest", 1, colon - 1),
            Value("/"),
            Substr("digest", colon + 1, 2),
            Value("/"),
            Substr("digest", colon + 1),
            output_field=models.CharField(),
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0006_upload_object_staging"),
    ]

    operations = [
        migrations.AddField(
            model_name="blob",
            name="object_name",
            field=models.CharField(max_length=255, null=True),
        ),
        migrations.RunPython(name_existing_objects, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="blob",
            name="object_name",
            field=models.CharField(max_length=255, unique=True),
        ),
    ]
