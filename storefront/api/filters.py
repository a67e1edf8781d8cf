"""Query parameters of the list endpoints, each declared once (`config.filters`): its
OpenAPI schema, its check (DRF's field, so a bad value is the usual 422 field map, every
bad parameter reported at once) and its effect on the queryset. The paginator reads
`page` and `per_page`; they are checked here so that no offset overflows the database.
"""

from django.db.models import Exists, F, Min, OuterRef, Q
from django.db.models.fields.json import KeyTextTransform
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from config.filters import Param, QueryFilters
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


def _checked(field: serializers.Field):
    def parse(name: str, raw: str):
        try:
            return field.run_validation(raw)
        except ValidationError as error:
            raise ValidationError({name: error.detail}) from error

    return parse


def integer(low: int, high: int, apply=None) -> Param:
    kind = {"type": "integer", "maximum": high, "minimum": low}
    if high > INT32_MAX:
        kind["format"] = "int64"
    field = serializers.IntegerField(min_value=low, max_value=high)
    return Param(kind, _checked(field), apply=apply)


def boolean(apply=None) -> Param:
    return Param({"type": "boolean"}, _checked(serializers.BooleanField()), apply=apply)


def text(max_length: int, apply=None) -> Param:
    kind = {"type": "string", "minLength": 1, "maxLength": max_length}
    return Param(kind, _checked(serializers.CharField(max_length=max_length)), apply=apply)


def matching(pattern: str, apply=None) -> Param:
    kind = {"type": "string", "minLength": 1, "pattern": pattern}
    return Param(kind, _checked(serializers.RegexField(pattern)), apply=apply)


def timestamp(lookup: str) -> Param:
    field = serializers.DateTimeField()
    return Param(
        {"type": "string", "format": "date-time"},
        _checked(field),
        apply=lambda queryset, value: queryset.filter(**{lookup: value}),
    )


def flag(name: str) -> Param:
    return boolean(lambda queryset, value: queryset.filter(**{name: value}))


def having_variant(condition, *, wanted=None) -> Param:
    """Products with a variant meeting `condition(value)` (without one, for a false flag;
    `wanted` fixes which for the stock bounds)."""

    def apply(queryset, value):
        exists = Exists(Variant.objects.filter(condition(value), product=OuterRef("pk")))
        return queryset.filter(exists if (value if wanted is None else wanted) else ~exists)

    if wanted is None:
        return boolean(apply)
    return integer(-INT32_MAX, INT32_MAX, apply)


TIME = {
    "page": integer(0, 10**9),
    "per_page": integer(0, 10**9),
    "since_id": integer(0, INT64_MAX, lambda queryset, value: queryset.filter(id__gt=value)),
    "created_at_min": timestamp("created_at__gte"),
    "created_at_max": timestamp("created_at__lte"),
    "updated_at_min": timestamp("updated_at__gte"),
    "updated_at_max": timestamp("updated_at__lte"),
}
# `handle` is looked up in `language` (the store's main one by default): see `by_handle`.
LANGUAGE = {**TIME, "language": matching(r"^[A-Za-z]{1,8}$"), "handle": text(255)}

TIME_FILTERS = QueryFilters(TIME)
CATEGORY_FILTERS = QueryFilters(
    {
        **LANGUAGE,
        # parent_id=0 asks for the top-level categories.
        "parent_id": integer(
            0, INT64_MAX, lambda queryset, value: queryset.filter(parent_id=value or None)
        ),
    }
)
PRODUCT_FILTERS = QueryFilters(
    {
        **LANGUAGE,
        "ids": matching(
            r"^\d{1,18}(,\d{1,18}){0,29}$",
            lambda queryset, value: queryset.filter(pk__in=[int(pk) for pk in value.split(",")]),
        ),
        "q": text(200),  # in every language of the store: see `filter_products`
        "category_id": integer(
            1, INT64_MAX, lambda queryset, value: queryset.filter(categories__id=value)
        ),
        "published": flag("published"),
        "free_shipping": flag("free_shipping"),
        "max_stock": having_variant(lambda value: Q(stock__lte=value), wanted=True),
        "min_stock": having_variant(lambda value: Q(stock__gte=value), wanted=True),
        "has_promotional_price": having_variant(lambda value: Q(promotional_price__isnull=False)),
        "has_weight": having_variant(lambda value: Q(weight__gt=0)),
        "has_all_dimensions": having_variant(
            lambda value: Q(width__gt=0, height__gt=0, depth__gt=0)
        ),
        "has_weight_and_all_dimensions": having_variant(
            lambda value: Q(weight__gt=0, width__gt=0, height__gt=0, depth__gt=0)
        ),
        "sort_by": Param(
            {"enum": list(SORTS), "type": "string", "minLength": 1},
            _checked(serializers.ChoiceField(SORTS)),
            default="user",
            description="The order of the answer: `user` (the default, manual order), "
            "price or cost, alpha or name (in the main language), created-at, each "
            "`-ascending` or `-descending`, or `best-selling`",
        ),
    }
)
IMAGE_FILTERS = QueryFilters(
    {
        **TIME,
        "src": text(1000, lambda queryset, value: queryset.filter(src=value)),
        "position": integer(1, INT32_MAX, lambda queryset, value: queryset.filter(position=value)),
    }
)
SCRIPT_FILTERS = QueryFilters(
    {**TIME, "src": text(1000, lambda queryset, value: queryset.filter(src=value))}
)
WEBHOOK_FILTERS = QueryFilters(
    {
        **TIME,
        "url": text(1000, lambda queryset, value: queryset.filter(url=value)),
        "event": text(50, lambda queryset, value: queryset.filter(event=value)),
    }
)


def validated(filters: QueryFilters, request) -> dict:
    """Every parameter's value (None when absent); a 422 naming each bad one."""
    values, errors = filters.parse_all(request.query_params, ValidationError)
    if errors:
        raise ValidationError(
            {name: detail for error in errors for name, detail in error.detail.items()}
        )
    return values


def filtered(filters: QueryFilters, queryset, values: dict, store=None):
    """`queryset` narrowed by the parameters' own effects, then by `handle` in its language."""
    queryset = filters.apply(queryset, values)
    if values.get("handle") is None:
        return queryset
    language = values["language"] or store.main_language
    if language not in store.languages:
        raise ValidationError(
            {"language": [f"is not one of the store's languages {store.languages}"]}
        )
    return queryset.filter(**{f"handle__{language}": values["handle"]})


def filter_products(queryset, values: dict, store):
    """The products matching the list filters, unordered (see `sort_products`)."""
    queryset = filtered(PRODUCT_FILTERS, queryset, values, store)
    if values["q"] is not None:
        text = values["q"]
        matches = Q(tags__icontains=text) | Q(
            Exists(Variant.objects.filter(product=OuterRef("pk"), sku__icontains=text))
        )
        for code in store.languages:
            matches |= Q(**{f"name__{code}__icontains": text})
        queryset = queryset.filter(matches)
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
