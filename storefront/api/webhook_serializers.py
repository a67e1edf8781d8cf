"""Wire names of the /webhooks resource (Tiendanube section 11.1) and its list filters."""

from rest_framework import serializers

from storefront.api.filters import TimeFilters
from storefront.api.serializers.fields import BLANK, TimestampField
from storefront.models import EVENTS, Webhook
from storefront.services import webhooks


class WebhookSerializer(serializers.ModelSerializer):
    created_at = TimestampField()
    updated_at = TimestampField()

    class Meta:
        model = Webhook
        fields = ["id", "url", "event", "created_at", "updated_at"]
        read_only_fields = fields


class WebhookWriteSerializer(serializers.Serializer):
    """Both fields on POST; either on PUT. Errors come back together as one 422 map."""

    url = serializers.CharField(
        max_length=1000, trim_whitespace=False, error_messages={"required": BLANK, "blank": BLANK}
    )
    event = serializers.CharField(
        max_length=50,
        help_text=", ".join(EVENTS),
        error_messages={"required": BLANK, "blank": BLANK},
    )

    def validate_url(self, value):
        if errors := webhooks.url_errors(value):
            raise serializers.ValidationError(errors)
        return value

    def validate_event(self, value):
        if errors := webhooks.event_errors(value):
            raise serializers.ValidationError(errors)
        return value


class WebhookFilters(TimeFilters):
    url = serializers.CharField(max_length=1000, required=False)
    event = serializers.CharField(max_length=50, required=False)
