"""Tiendanube's script and store shapes."""

from urllib.parse import urlsplit

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from storefront.api.serializers.fields import BLANK, I18nField, NullField, TimestampField
from storefront.models import Script


class ScriptSerializer(serializers.ModelSerializer):
    created_at = TimestampField()
    updated_at = TimestampField()

    class Meta:
        model = Script
        fields = ["id", "src", "event", "where", "created_at", "updated_at"]
        read_only_fields = fields


class ScriptWriteSerializer(serializers.Serializer):
    src = serializers.URLField(max_length=1000, error_messages={"required": BLANK, "blank": BLANK})
    event = serializers.ChoiceField(
        Script.EVENTS,
        error_messages={
            "required": BLANK,
            "blank": BLANK,
            "invalid_choice": "is not included in the list",
        },
    )
    where = serializers.CharField(max_length=20, required=False)

    def validate_src(self, value):
        if not value.lower().startswith("https://"):
            raise serializers.ValidationError("must be an https URL")
        return value

    def validate_where(self, value):
        places = [place.strip() for place in value.split(",") if place.strip()]
        if not places or set(places) - set(Script.PLACES):
            raise serializers.ValidationError("is not included in the list")
        return ",".join(dict.fromkeys(places))


class StoreSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = I18nField()
    description = I18nField()
    type = NullField()
    email = serializers.EmailField(source="owner.email")
    logo = NullField()
    contact_email = serializers.EmailField(source="owner.email")
    facebook = NullField()
    twitter = NullField()
    google_plus = NullField()
    instagram = NullField()
    pinterest = NullField()
    blog = NullField()
    address = NullField()
    phone = NullField()
    whatsapp_phone_number = NullField()
    business_id = NullField()
    business_name = NullField()
    business_address = NullField()
    customer_accounts = serializers.SerializerMethodField()
    plan_name = NullField()
    country = serializers.CharField()
    languages = serializers.SerializerMethodField()
    domains = serializers.SerializerMethodField()
    original_domain = serializers.SerializerMethodField()
    current_theme = NullField()
    main_language = serializers.CharField()
    main_currency = serializers.CharField(source="currency")
    admin_language = serializers.CharField(source="main_language")
    has_multicd = serializers.SerializerMethodField()
    created_at = TimestampField()

    def get_customer_accounts(self, store) -> str:
        return "optional"

    @extend_schema_field(
        {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"currency": {"type": "string"}, "active": {"type": "boolean"}},
            },
        }
    )
    def get_languages(self, store):
        return {code: {"currency": store.currency, "active": True} for code in store.languages}

    def get_domains(self, store) -> list[str]:
        return []

    def get_original_domain(self, store) -> str:
        return urlsplit(settings.EXTERNAL_URL).netloc

    def get_has_multicd(self, store) -> bool:
        return False
