from django.db import migrations

from config.vendor_sql import search_gin_without_pending_list


class Migration(migrations.Migration):
    dependencies = [("codehost", "0010_repo_by_id_sqlite")]

    operations = [
        search_gin_without_pending_list(
            "codehost_repo_name_trgm", "codehost_repo_desc_trgm", "codehost_repo_topics_trgm"
        )
    ]
