from django.db import migrations

from config.vendor_sql import search_gin_without_pending_list


class Migration(migrations.Migration):
    dependencies = [("registry", "0010_repository_artifact_counts")]

    operations = [search_gin_without_pending_list("registry_repository_name_trgm")]
