"""`PATCH /products/stock-price`: price and stock of up to 50 variants across products.

Body: `[{"id": <product>, "variants": [{"id": <variant>, "price": 1000,
"inventory_levels": [{"stock": 300}]}, ...]}, ...]` (`stock` directly on the variant is
accepted too; `""` or null stock is unlimited). Answer: the same nesting with
`{"id": <variant>, "success": true|false}` per variant; a variant that is not one of
that product's in this store is `success: false` and the others are still applied, as
Tiendanube does. Field errors refuse the whole request (422 `Validation error` envelope).
"""

from decimal import Decimal, InvalidOperation

from config.limits import INT32_MAX, INT64_MAX
from storefront.api.exceptions import BadInput, InvalidFields
from storefront.errors import Invalid

MAX_VARIANTS = 50
MAX_PRICE = Decimal("999999999999.99")
UNSET = object()

_STOCK = {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": [""]}]}
REQUEST_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "variants"],
        "properties": {
            "id": {"type": "integer"},
            "variants": {
                "type": "array",
                "maxItems": MAX_VARIANTS,
                "items": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {
                        "id": {"type": "integer"},
                        "price": {"oneOf": [{"type": "number"}, {"type": "string"}]},
                        "stock": {**_STOCK, "nullable": True},
                        "inventory_levels": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"stock": _STOCK}},
                        },
                    },
                },
            },
        },
    },
}
RESPONSE_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "variants": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "success": {"type": "boolean"}},
                },
            },
        },
    },
}


def parse(body) -> list[tuple[int, list[dict]]]:
    """(product id, [{"id", "price"?, "stock"?}]) pairs from the body, or 400/422."""
    if not isinstance(body, list) or not all(isinstance(item, dict) for item in body):
        raise BadInput()
    errors: dict[str, list[str]] = {}
    products = []
    for item in body:
        variants = item.get("variants")
        if not isinstance(variants, list) or not all(isinstance(v, dict) for v in variants):
            _add(errors, "variants", "The variants field must be an array of variants.")
            continue
        products.append((_id(item.get("id"), errors), [_variant(v, errors) for v in variants]))
    if sum(len(variants) for _, variants in products) > MAX_VARIANTS:
        raise Invalid("Too many variants sent for update")
    if errors:
        raise InvalidFields(errors)
    return products


def _add(errors: dict, field: str, message: str) -> None:
    if message not in errors.setdefault(field, []):
        errors[field].append(message)


def _id(value, errors: dict) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= INT64_MAX:
        _add(errors, "id", "The id must be a positive integer.")
        return 0
    return value


def _variant(data: dict, errors: dict) -> dict:
    change = {"id": _id(data.get("id"), errors)}
    if "price" in data:
        change["price"] = _price(data["price"], errors)
    stock = data.get("stock", UNSET)
    levels = data.get("inventory_levels", UNSET)
    if levels is not UNSET:
        # One location (no multi-inventory): its level is the variant's stock.
        if not isinstance(levels, list) or len(levels) != 1 or not isinstance(levels[0], dict):
            _add(errors, "inventory_levels", "The inventory levels must hold one level.")
        else:
            stock = levels[0].get("stock", UNSET)
    if stock is not UNSET:
        change["stock"] = _stock(stock, errors)
    return change


def _price(value, errors: dict) -> Decimal | None:
    if value is None:
        return None  # no price: a "contact us" product
    try:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise InvalidOperation
        price = Decimal(str(value).strip())
        if not price.is_finite():
            raise InvalidOperation
    except InvalidOperation:
        _add(errors, "price", "The price must be a number.")
        return None
    if price < 0:
        _add(errors, "price", "The price must be at least 0.")
    elif price > MAX_PRICE:
        _add(errors, "price", f"The price may not be greater than {MAX_PRICE}.")
    return price.quantize(Decimal("0.01")) if 0 <= price <= MAX_PRICE else None


def _stock(value, errors: dict) -> int | None:
    if value is None or value == "":
        return None  # unlimited
    if isinstance(value, bool) or not isinstance(value, int):
        _add(errors, "stock", "The stock must be an integer.")
        return None
    if value < 0:
        _add(errors, "stock", "The stock must be at least 0.")
    elif value > INT32_MAX:
        _add(errors, "stock", f"The stock may not be greater than {INT32_MAX}.")
    return value
