"""Tiendanube's wire shapes: read serializers describe the answers (OpenAPI) and render
single model instances through `storefront.api.rows`, which renders product pages from
plain rows; write serializers validate bodies into plain dicts that `storefront.catalog`
applies. Both need `context["store"]` for its languages.
"""

import datetime
from urllib.parse import urlsplit

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.limits import INT32_MAX, INT64_MAX
from storefront import images
from storefront.api import rows
from storefront.models import Category, Product, ProductImage, Script, Variant

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
BLANK = "can't be blank"


@extend_schema_field(
    {
        "type": "string",
        "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$",
        "example": "2024-05-02T14:03:11+0000",
    }
)
class TimestampField(serializers.DateTimeField):
    """`2024-05-02T14:03:11+0000`: whole seconds, UTC, offset without a colon."""

    def __init__(self, **kwargs):
        super().__init__(
            format=TIME_FORMAT, default_timezone=datetime.UTC, read_only=True, **kwargs
        )


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise serializers.ValidationError("Null characters are not allowed.")
    return value


class FastOutput:
    """DRF's field-by-field machinery costs ~1 ms per product, so the read serializers
    render through `storefront.api.rows` (whole product pages never reach them). Their
    declared fields stay: they are the OpenAPI description, and the tests pin the key
    order to Tiendanube's."""

    @property
    def languages(self) -> list[str]:
        return self.context["store"].languages


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {"type": "object", "additionalProperties": {"type": "string", "nullable": True}},
        ],
        "description": "Object keyed by language code; a plain string applies to every language",
    }
)
class I18nField(serializers.Field):
    """An internationalized value: always an object keyed by the store's languages."""

    default_error_messages = {
        "invalid": "Must be a string or an object keyed by language code.",
        "language": "Unknown language {code}; the store's languages are {languages}.",
        "value": "The value for {code} must be a string.",
        "max_length": "Ensure this field has no more than {max_length} characters.",
        "blank": BLANK,
        "required": BLANK,
        "null": BLANK,
    }

    def __init__(self, *, max_length: int | None = None, allow_blank: bool = True, **kwargs):
        self.max_length = max_length
        self.allow_blank = allow_blank
        super().__init__(**kwargs)

    @property
    def languages(self) -> list[str]:
        return self.context["store"].languages

    def to_representation(self, value):
        value = value if isinstance(value, dict) else {}
        return {code: value.get(code) or "" for code in self.languages}

    def to_internal_value(self, data):
        if isinstance(data, str):
            values = dict.fromkeys(self.languages, data)
        elif isinstance(data, dict):
            values = {}
            for code, text in data.items():
                if code not in self.languages:
                    self.fail("language", code=code, languages=", ".join(self.languages))
                if text is not None and not isinstance(text, str):
                    self.fail("value", code=code)
                values[code] = text or ""
        else:
            self.fail("invalid")
        for text in values.values():
            _no_nul(text)
            if self.max_length and len(text) > self.max_length:
                self.fail("max_length", max_length=self.max_length)
        if not self.allow_blank and not any(text.strip() for text in values.values()):
            self.fail("blank")
        return values


class CategorySerializer(FastOutput, serializers.ModelSerializer):
    name = I18nField()
    description = I18nField()
    handle = I18nField()
    parent = serializers.IntegerField(source="parent_id", allow_null=True)
    subcategories = serializers.SerializerMethodField()
    created_at = TimestampField()
    updated_at = TimestampField()

    class Meta:
        model = Category
        fields = [
            "id",
            "name",
            "description",
            "handle",
            "parent",
            "subcategories",
            "google_shopping_category",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_subcategories(self, category) -> list[int]:
        # Children are prefetched by the views (one query for a whole page).
        return sorted(child.pk for child in category.children.all())

    def to_representation(self, category):
        return rows.category_payload(
            rows.instance_row(category), self.get_subcategories(category), self.languages
        )


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


class ProductImageSerializer(serializers.ModelSerializer):
    created_at = TimestampField()
    updated_at = TimestampField()

    class Meta:
        model = ProductImage
        fields = ["id", "product_id", "src", "position", "alt", "created_at", "updated_at"]
        read_only_fields = fields

    def to_representation(self, image):
        return rows.image_payload(rows.instance_row(image))


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


def _decimal(digits: int = 14, places: int = 2, **kwargs):
    return serializers.DecimalField(
        max_digits=digits, decimal_places=places, min_value=0, coerce_to_string=True, **kwargs
    )


class VariantSerializer(FastOutput, serializers.ModelSerializer):
    """Key order as in Tiendanube's live answers."""

    image_id = serializers.IntegerField(allow_null=True)
    product_id = serializers.IntegerField()
    stock_management = serializers.SerializerMethodField()
    values = serializers.ListField(child=I18nField())
    created_at = TimestampField()
    updated_at = TimestampField()

    class Meta:
        model = Variant
        fields = [
            "id",
            "image_id",
            "product_id",
            "position",
            "price",
            "compare_at_price",
            "promotional_price",
            "stock_management",
            "stock",
            "weight",
            "width",
            "height",
            "depth",
            "sku",
            "values",
            "barcode",
            "mpn",
            "age_group",
            "gender",
            "cost",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_stock_management(self, variant) -> bool:
        return variant.stock is not None

    def to_representation(self, variant):
        return rows.variant_payload(rows.instance_row(variant), self.languages)


class StockField(serializers.IntegerField):
    """An integer, or null / "" for stock that is not managed (infinite)."""

    def __init__(self, **kwargs):
        super().__init__(min_value=-INT32_MAX, max_value=INT32_MAX, allow_null=True, **kwargs)

    def validate_empty_values(self, data):
        if data == "":
            return True, None
        return super().validate_empty_values(data)


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


class ProductSerializer(serializers.ModelSerializer):
    """The product object's description only: products are rendered by
    `storefront.api.rows.render_products`, a whole page at a time."""

    name = I18nField()
    description = I18nField()
    handle = I18nField()
    attributes = serializers.ListField(child=I18nField())
    canonical_url = serializers.CharField()
    variants = VariantSerializer(many=True)
    images = ProductImageSerializer(many=True)
    categories = CategorySerializer(many=True)
    created_at = TimestampField()
    updated_at = TimestampField()

    class Meta:
        model = Product
        fields = [
            "id",
            "name",
            "description",
            "handle",
            "attributes",
            "published",
            "free_shipping",
            "requires_shipping",
            "canonical_url",
            "video_url",
            "seo_title",
            "seo_description",
            "brand",
            "created_at",
            "updated_at",
            "variants",
            "tags",
            "images",
            "categories",
        ]
        read_only_fields = fields


class SecureURLField(serializers.URLField):
    default_error_messages = {"insecure": "The video url field is not a secure url"}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not value.lower().startswith("https://"):
            self.fail("insecure")
        return value


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


@extend_schema_field({"type": "string", "nullable": True})
class NullField(serializers.Field):
    """A Tiendanube store profile field this service does not keep: always null."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value):
        return None


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
