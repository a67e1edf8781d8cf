"""Harbor's wire record for an audit log entry."""

from rest_framework import serializers

from registry.api.serializers.fields import HarborSerializer, HarborTimeField, _out


class AuditLogSerializer(HarborSerializer):
    id = _out(serializers.IntegerField)
    username = _out(serializers.CharField)
    resource = _out(serializers.CharField)
    resource_type = _out(serializers.CharField)
    operation = _out(serializers.CharField)
    op_time = HarborTimeField()
