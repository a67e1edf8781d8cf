"""The /webhooks body (Tiendanube section 11.1); the answer is the `WEBHOOK` record."""

from rest_framework import serializers

from storefront.api.serializers.fields import BLANK
from storefront.models import EVENTS
from storefront.services import webhooks


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
