import django.db.models.deletion
from django.db import migrations, models

from config.vendor_sql import count_triggers

TABLE = "registry_projectrepositorycount"


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
        *count_triggers("registry_repository", TABLE, ["project_id"], "registry_repository_count"),
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
