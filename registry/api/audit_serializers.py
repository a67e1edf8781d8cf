"""Harbor's wire record for an audit log entry."""

from rest_framework import serializers

from config.records import Field
from registry.api.serializers.fields import HarborTimeField, _out, harbor_record, harbor_times

AUDIT_LOG = harbor_record(
    "AuditLog",
    {
        "id": Field(_out(serializers.IntegerField)),
        "username": Field(_out(serializers.CharField)),
        "resource": Field(_out(serializers.CharField)),
        "resource_type": Field(_out(serializers.CharField)),
        "operation": Field(_out(serializers.CharField)),
        # Formatted by the database (audit_rows annotates it).
        "op_time": Field(HarborTimeField(), "op_time_text"),
    },
)


def audit_rows(queryset):
    """Audit entries annotated with what AUDIT_LOG reads."""
    return queryset.annotate(**harbor_times("op_time"))
