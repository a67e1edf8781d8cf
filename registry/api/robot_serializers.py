"""Harbor's wire records for robot accounts."""

from rest_framework import serializers

from registry.api.serializers.fields import HarborSerializer, HarborTimeField, _out
from registry.services import robots


class AccessSerializer(serializers.Serializer):
    resource = serializers.CharField(required=False, allow_blank=True)
    action = serializers.CharField(required=False, allow_blank=True)
    effect = serializers.CharField(required=False, allow_blank=True)


class RobotPermissionSerializer(serializers.Serializer):
    kind = serializers.CharField(required=False, allow_blank=True)
    namespace = serializers.CharField(required=False, allow_blank=True)
    access = AccessSerializer(many=True, required=False, allow_null=True)


class RobotSerializer(HarborSerializer):
    """Harbor's `Robot` (the secret is never part of it)."""

    always = frozenset({"disable", "editable", "duration"})
    arrays = frozenset()

    id = _out(serializers.IntegerField)
    name = serializers.SerializerMethodField()
    description = _out(serializers.CharField, allow_blank=True)
    level = _out(serializers.CharField)
    duration = _out(serializers.IntegerField, allow_null=True)
    editable = serializers.SerializerMethodField()
    disable = _out(serializers.BooleanField, source="disabled")
    expires_at = _out(serializers.IntegerField)
    permissions = _out(RobotPermissionSerializer, many=True)
    creator_type = _out(serializers.CharField)
    creator_ref = _out(serializers.IntegerField)
    creation_time = HarborTimeField()
    update_time = HarborTimeField()

    def get_name(self, robot) -> str:
        return robots.full_name(robot)

    def get_editable(self, robot) -> bool:
        return True


class RobotCreatedSerializer(HarborSerializer):
    id = _out(serializers.IntegerField)
    name = _out(serializers.CharField)
    secret = _out(serializers.CharField)
    creation_time = HarborTimeField()
    expires_at = _out(serializers.IntegerField)


class RobotSecSerializer(HarborSerializer):
    secret = _out(serializers.CharField, allow_blank=True)


class RobotCreateSerializer(serializers.Serializer):
    """Request body of POST /robots (documentation only: the service checks the rules and
    answers 400 as Harbor's handler does)."""

    name = serializers.CharField(required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    secret = serializers.CharField(required=False, allow_blank=True)
    level = serializers.CharField(required=False)
    disable = serializers.BooleanField(required=False)
    duration = serializers.IntegerField(required=False)
    permissions = RobotPermissionSerializer(many=True, required=False)


class RobotUpdateSerializer(RobotCreateSerializer):
    editable = serializers.BooleanField(required=False)
    expires_at = serializers.IntegerField(required=False)
