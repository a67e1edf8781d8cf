from django.conf import settings
from django.db import migrations

from config.vendor_sql import PostgresOnlySQL


def create_user_owners(apps, schema_editor):
    """Namespaces for the accounts that existed before the app (e.g. the admin)."""
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Owner = apps.get_model("codehost", "Owner")
    taken = set(Owner.objects.values_list("lower_name", flat=True))
    for user in User.objects.filter(codehost_owner__isnull=True):
        if user.username.lower() in taken:
            continue
        Owner.objects.create(
            user=user, name=user.username, lower_name=user.username.lower(), email=user.email
        )
        taken.add(user.username.lower())


class Migration(migrations.Migration):
    dependencies = [
        ("codehost", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Keyword search is `lower_name LIKE '%q%'` (and `UPPER(description) LIKE` with
        # includeDesc): trigram GIN indexes keep it off a sequential scan on PostgreSQL.
        PostgresOnlySQL(
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            reverse_sql=migrations.RunSQL.noop,
        ),
        PostgresOnlySQL(
            "CREATE INDEX codehost_repo_name_trgm ON codehost_repository "
            "USING gin (lower_name gin_trgm_ops)",
            reverse_sql="DROP INDEX codehost_repo_name_trgm",
        ),
        PostgresOnlySQL(
            "CREATE INDEX codehost_repo_desc_trgm ON codehost_repository "
            "USING gin (UPPER(description) gin_trgm_ops)",
            reverse_sql="DROP INDEX codehost_repo_desc_trgm",
        ),
        PostgresOnlySQL(
            "CREATE INDEX codehost_repo_topics_trgm ON codehost_repository "
            "USING gin (topics_index gin_trgm_ops)",
            reverse_sql="DROP INDEX codehost_repo_topics_trgm",
        ),
        migrations.RunPython(create_user_owners, migrations.RunPython.noop),
    ]
