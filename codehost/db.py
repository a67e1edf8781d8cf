"""Migration operations that only apply on PostgreSQL (SQLite, the embedded default, skips them).

They change no model state: the trigram indexes speed up keyword search (`LIKE '%q%'`)
and are invisible to the ORM.
"""

from django.db import migrations


class PostgresOnlySQL(migrations.RunSQL):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
