"""Tiendanube's catalogue bodies (categories, images, variants, products): write
serializers validate them into plain dicts that `storefront.services` applies; they need
`context["store"]` for its languages. The answers are `storefront.api.serializers.records`.
"""

from rest_framework import serializers

from config.limits import INT32_MAX, INT64_MAX
from storefront import images
from storefront.api.serializers.fields import BLANK, I18nField, SecureURLField, StockField, _decimal
from storefront.models import Variant


class CategoryWriteSerializer(serializers.Serializer):
    name = I18nField(max_length=255, allow_blank=False)
    description = I18nField(max_length=65535, required=False)
    handle = I18nField(max_length=255, required=False)
    parent = serializers.IntegerField(
        min_value=1, max_value=INT64_MAX, allow_null=True, required=False
    )
    google_shopping_category = serializers.CharField(
        max_length=255, allow_null=True, allow_blank=True, required=False
    )


class ProductImageWriteSerializer(serializers.Serializer):
    """An image by `src` URL, or uploaded as base64 `attachment` with its `filename`
    (validated data then carries `upload`, see `storefront.images`)."""

    src = serializers.URLField(
        max_length=1000, required=False, error_messages={"blank": BLANK, "null": BLANK}
    )
    attachment = serializers.CharField(required=False, write_only=True, trim_whitespace=False)
    filename = serializers.CharField(max_length=255, required=False, write_only=True)
    position = serializers.IntegerField(min_value=1, max_value=INT32_MAX, required=False)
    alt = serializers.ListField(
        child=serializers.CharField(max_length=500, allow_blank=True), required=False, max_length=20
    )

    def validate(self, data):
        filename = data.pop("filename", "")
        if "attachment" in data:
            try:
                data["upload"] = images.decode(data.pop("attachment"), filename)
            except images.InvalidAttachment as error:
                raise serializers.ValidationError({"attachment": [str(error)]}) from error
        elif "src" not in data and not self.partial:
            raise serializers.ValidationError({"src": [BLANK]})
        return data


class VariantWriteSerializer(serializers.Serializer):
    id = serializers.IntegerField(min_value=1, max_value=INT64_MAX, required=False)
    image_id = serializers.IntegerField(
        min_value=1, max_value=INT64_MAX, allow_null=True, required=False
    )
    position = serializers.IntegerField(min_value=1, max_value=INT32_MAX, required=False)
    price = _decimal(allow_null=True, required=False)
    compare_at_price = _decimal(allow_null=True, required=False)
    promotional_price = _decimal(allow_null=True, required=False)
    stock = StockField(required=False)
    weight = _decimal(12, 3, required=False)
    width = _decimal(12, required=False)
    height = _decimal(12, required=False)
    depth = _decimal(12, required=False)
    sku = serializers.CharField(max_length=100, allow_null=True, allow_blank=True, required=False)
    values = serializers.ListField(child=I18nField(max_length=255), max_length=3, required=False)
    barcode = serializers.CharField(
        max_length=100, allow_null=True, allow_blank=True, required=False
    )
    mpn = serializers.CharField(max_length=100, allow_null=True, allow_blank=True, required=False)
    age_group = serializers.ChoiceField(
        Variant.AGE_GROUPS,
        allow_null=True,
        required=False,
        error_messages={"invalid_choice": "The selected age group is invalid."},
    )
    gender = serializers.ChoiceField(
        Variant.GENDERS,
        allow_null=True,
        required=False,
        error_messages={"invalid_choice": "The selected gender is invalid."},
    )
    cost = _decimal(allow_null=True, required=False)


class StockChangeSerializer(serializers.Serializer):
    action = serializers.ChoiceField(
        ("replace", "variation"),
        error_messages={"invalid_choice": "Valid actions are 'replace', 'variation'."},
    )
    value = serializers.IntegerField(min_value=-INT32_MAX, max_value=INT32_MAX, allow_null=True)
    id = serializers.IntegerField(min_value=1, max_value=INT64_MAX, required=False)

    def validate(self, data):
        if data["action"] == "variation" and data["value"] is None:
            raise serializers.ValidationError({"value": ["A variation needs a number."]})
        return data


class ProductWriteSerializer(serializers.Serializer):
    name = I18nField(max_length=255, allow_blank=False)
    description = I18nField(max_length=65535, required=False)
    handle = I18nField(max_length=255, required=False)
    attributes = serializers.ListField(
        child=I18nField(max_length=255), max_length=3, required=False
    )
    published = serializers.BooleanField(required=False)
    free_shipping = serializers.BooleanField(required=False)
    requires_shipping = serializers.BooleanField(required=False)
    video_url = SecureURLField(max_length=500, allow_null=True, allow_blank=True, required=False)
    seo_title = serializers.CharField(max_length=70, allow_blank=True, required=False)
    seo_description = serializers.CharField(max_length=320, allow_blank=True, required=False)
    brand = serializers.CharField(max_length=200, allow_null=True, allow_blank=True, required=False)
    tags = serializers.CharField(max_length=1000, allow_blank=True, required=False)
    categories = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=INT64_MAX), required=False
    )
    # Only on create; afterwards through the variants and images endpoints.
    variants = VariantWriteSerializer(many=True, required=False)
    images = ProductImageWriteSerializer(many=True, required=False)

    def validate_video_url(self, value):
        # An empty address clears the video: the product shows null, never "".
        return value or None
