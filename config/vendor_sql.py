"""Migration operations that apply on one database only. They change no model state: the
indexes they make speed up keyword search (`LIKE '%q%'`) and are invisible to the ORM.

PostgreSQL answers a keyword through trigram GIN indexes. SQLite has no such index: the
code hosting's search scans a narrow covering index instead of the table's wide rows, and
the registry's repository names have an FTS5 trigram table (a substring filter before
the exact LIKE).
"""

from django.db import migrations


class VendorSQL(migrations.RunSQL):
    vendor = ""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class PostgresOnlySQL(VendorSQL):
    vendor = "postgresql"


class SQLiteOnlySQL(VendorSQL):
    vendor = "sqlite"
