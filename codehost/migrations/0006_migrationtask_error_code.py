"""A failed migration keeps the code of its domain error instead of an HTTP status: the
wire's status is codehost.api's to choose."""

from django.db import migrations, models

# The statuses stored so far and the domain error codes (codehost.errors) they stood for.
CODES = {400: "rejected", 403: "forbidden", 404: "not_found", 409: "conflict",
         422: "invalid", 429: "caller_busy", 500: "internal", 503: "server_busy"}  # fmt: skip
STATUSES = {code: status for status, code in CODES.items()}


def status_to_code(apps, schema_editor):
    MigrationTask = apps.get_model("codehost", "MigrationTask")
    for status, code in CODES.items():
        MigrationTask.objects.filter(error_status=status).update(error_code=code)
    # Any other non-zero status was a failure of ours.
    MigrationTask.objects.exclude(error_status__in=[0, *CODES]).update(error_code="internal")


def code_to_status(apps, schema_editor):
    MigrationTask = apps.get_model("codehost", "MigrationTask")
    for code, status in STATUSES.items():
        MigrationTask.objects.filter(error_code=code).update(error_status=status)
    MigrationTask.objects.exclude(error_code__in=["", *STATUSES]).update(error_status=500)


class Migration(migrations.Migration):
    dependencies = [
        ("codehost", "0005_repo_visibility_index_and_password_change"),
    ]

    operations = [
        migrations.AddField(
            model_name="migrationtask",
            name="error_code",
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.RunPython(status_to_code, code_to_status),
        migrations.RemoveField(
            model_name="migrationtask",
            name="error_status",
        ),
    ]
