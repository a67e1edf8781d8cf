"""Query parameters of the list endpoints: validated by a serializer (invalid values are a
422 field map), then applied to the queryset."""

from django.db.models import Exists, F, Min, OuterRef, Q
from django.db.models.fields.json import KeyTextTransform
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from config.limits import INT32_MAX, INT64_MAX
from storefront.models import Variant

SORTS = (
    "user",
    "price-ascending",
    "cost-ascending",
    "price-descending",
    "cost-descending",
    "alpha-ascending",
    "name-ascending",
    "alpha-descending",
    "name-descending",
    "created-at-ascending",
    "created-at-descending",
    "best-selling",
)


class TimeFilters(serializers.Serializer):
    # Read by the paginator; bounded here so that no offset overflows the database.
    page = serializers.IntegerField(min_value=0, max_value=10**9, required=False)
    per_page = serializers.IntegerField(min_value=0, max_value=10**9, required=False)
    since_id = serializers.IntegerField(min_value=0, max_value=INT64_MAX, required=False)
    created_at_min = serializers.DateTimeField(required=False)
    created_at_max = serializers.DateTimeField(required=False)
    updated_at_min = serializers.DateTimeField(required=False)
    updated_at_max = serializers.DateTimeField(required=False)


class LanguageFilters(TimeFilters):
    language = serializers.RegexField(r"^[A-Za-z]{1,8}$", required=False)
    handle = serializers.CharField(max_length=255, required=False)


class CategoryFilters(LanguageFilters):
    parent_id = serializers.IntegerField(min_value=0, max_value=INT64_MAX, required=False)


class ProductFilters(LanguageFilters):
    ids = serializers.RegexField(r"^\d{1,18}(,\d{1,18}){0,29}$", required=False)
    q = serializers.CharField(max_length=200, required=False)
    category_id = serializers.IntegerField(min_value=1, max_value=INT64_MAX, required=False)
    published = serializers.BooleanField(required=False)
    free_shipping = serializers.BooleanField(required=False)
    max_stock = serializers.IntegerField(min_value=-INT32_MAX, max_value=INT32_MAX, required=False)
    min_stock = serializers.IntegerField(min_value=-INT32_MAX, max_value=INT32_MAX, required=False)
    has_promotional_price = serializers.BooleanField(required=False)
    has_weight = serializers.BooleanField(required=False)
    has_all_dimensions = serializers.BooleanField(required=False)
    has_weight_and_all_dimensions = serializers.BooleanField(required=False)
    sort_by = serializers.ChoiceField(SORTS, required=False)


class ImageFilters(TimeFilters):
    src = serializers.CharField(max_length=1000, required=False)
    position = serializers.IntegerField(min_value=1, max_value=INT32_MAX, required=False)


class ScriptFilters(TimeFilters):
    src = serializers.CharField(max_length=1000, required=False)


def validated(filters_class, request) -> dict:
    # A plain dict: DRF reads absent booleans of a QueryDict as False.
    serializer = filters_class(data=request.query_params.dict())
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def filter_by_time(queryset, params: dict):
    lookups = {
        "since_id": "id__gt",
        "created_at_min": "created_at__gte",
        "created_at_max": "created_at__lte",
        "updated_at_min": "updated_at__gte",
        "updated_at_max": "updated_at__lte",
    }
    return queryset.filter(
        **{lookup: params[name] for name, lookup in lookups.items() if name in params}
    )


def _language(params: dict, store) -> str:
    language = params.get("language", store.main_language)
    if language not in store.languages:
        raise ValidationError(
            {"language": [f"is not one of the store's languages {store.languages}"]}
        )
    return language


def filter_by_handle(queryset, params: dict, store):
    if "handle" not in params:
        return queryset
    return queryset.filter(**{f"handle__{_language(params, store)}": params["handle"]})


def filter_products(queryset, params: dict, store):
    """The products matching the list filters, unordered (see `sort_products`)."""
    queryset = filter_by_handle(filter_by_time(queryset, params), params, store)
    if "ids" in params:
        queryset = queryset.filter(pk__in=[int(pk) for pk in params["ids"].split(",")])
    if "q" in params:
        text = params["q"]
        matches = Q(tags__icontains=text) | Q(
            Exists(Variant.objects.filter(product=OuterRef("pk"), sku__icontains=text))
        )
        for code in store.languages:
            matches |= Q(**{f"name__{code}__icontains": text})
        queryset = queryset.filter(matches)
    if "category_id" in params:
        queryset = queryset.filter(categories__id=params["category_id"])
    for flag in ("published", "free_shipping"):
        if flag in params:
            queryset = queryset.filter(**{flag: params[flag]})
    variant_conditions = {
        "max_stock": lambda value: Q(stock__lte=value),
        "min_stock": lambda value: Q(stock__gte=value),
        "has_promotional_price": lambda value: Q(promotional_price__isnull=False),
        "has_weight": lambda value: Q(weight__gt=0),
        "has_all_dimensions": lambda value: Q(width__gt=0, height__gt=0, depth__gt=0),
        "has_weight_and_all_dimensions": lambda value: Q(
            weight__gt=0, width__gt=0, height__gt=0, depth__gt=0
        ),
    }
    for name, condition in variant_conditions.items():
        if name not in params:
            continue
        wanted = True if name in ("max_stock", "min_stock") else params[name]
        exists = Exists(Variant.objects.filter(condition(params[name]), product=OuterRef("pk")))
        queryset = queryset.filter(exists if wanted else ~exists)
    return queryset


def sort_products(queryset, sort_by: str, store):
    descending = sort_by.endswith("-descending")
    if sort_by.startswith(("price-", "cost-")):
        price = F("min_price")
        price = price.desc(nulls_last=True) if descending else price.asc(nulls_last=True)
        return queryset.annotate(min_price=Min("variants__price")).order_by(price, "id")
    if sort_by.startswith(("alpha-", "name-")):
        name = KeyTextTransform(store.main_language, "name")
        return queryset.order_by(name.desc() if descending else name.asc(), "id")
    if sort_by == "created-at-descending":
        return queryset.order_by("-created_at", "-id")
    # user (manual order), best-selling (no sales recorded here) and created-at-ascending
    return queryset.order_by("created_at", "id")


def filter_categories(queryset, params: dict, store):
    queryset = filter_by_handle(filter_by_time(queryset, params), params, store)
    if "parent_id" in params:
        # parent_id=0 asks for the top-level categories.
        queryset = queryset.filter(parent_id=params["parent_id"] or None)
    return queryset.order_by("id")


def filter_images(queryset, params: dict):
    queryset = filter_by_time(queryset, params)
    for name in ("src", "position"):
        if name in params:
            queryset = queryset.filter(**{name: params[name]})
    return queryset.order_by("position", "id")


def filter_scripts(queryset, params: dict):
    queryset = filter_by_time(queryset, params)
    if "src" in params:
        queryset = queryset.filter(src=params["src"])
    return queryset.order_by("id")
