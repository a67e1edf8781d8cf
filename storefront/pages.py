"""The store front: HTML pages of a store, with window.LS and the scripts of its apps.

Every page defines `window.LS` (storefront/static/storefront/ls.js builds it from a JSON
island) and includes the Scripts API scripts of the store's apps, except while the store or
that app is suspended.
"""

from decimal import Decimal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Prefetch, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.utils.html import strip_tags

from config.limits import INT64_MAX
from storefront.models import Category, Product, ProductImage, Script, Store, Variant

PRODUCTS_PER_PAGE = 24
# Ids are bigint columns; a longer number in a URL names nothing (and must not reach SQL).
# Symbol and separators of the currencies stores use most; others show their ISO code.
CURRENCIES = {
    "ARS": ("$", "Peso argentino", ".", ","),
    "BRL": ("R$", "Real", ".", ","),
    "CLP": ("$", "Peso chileno", ".", ","),
    "COP": ("$", "Peso colombiano", ".", ","),
    "MXN": ("$", "Peso mexicano", ",", "."),
    "USD": ("US$", "US dollar", ",", "."),
    "EUR": ("€", "Euro", ".", ","),
}


class Shop:
    """The store as one page sees it: language, money format and the shared context."""

    def __init__(self, request, store: Store):
        self.store = store
        asked = request.GET.get("lang", "")
        self.lang = asked if asked in self.store.languages else self.store.main_language
        code = self.store.currency
        symbol, long_name, thousands, cents = CURRENCIES.get(code, (code + " ", code, ",", "."))
        self.currency = {
            "code": code,
            "display_short": symbol,
            "display_long": long_name,
            "thousands_separator": thousands,
            "cents_separator": cents,
        }
        # Links keep the shopper's language choice when it is not the main language.
        self.lang_query = f"?lang={self.lang}" if self.lang != self.store.main_language else ""

    def text(self, value) -> str:
        """An internationalized value in the page's language (the main one as fallback)."""
        if not isinstance(value, dict):
            return str(value or "")
        return value.get(self.lang) or value.get(self.store.main_language) or ""

    def money(self, amount: Decimal | None) -> str:
        if amount is None:
            return ""
        whole, cents = f"{amount:,.2f}".split(".")
        whole = whole.replace(",", self.currency["thousands_separator"])
        return f"{self.currency['display_short']}{whole}{self.currency['cents_separator']}{cents}"

    def url(self, path: str = "") -> str:
        return f"/stores/{self.store.pk}/{path}{self.lang_query}"

    def scripts(self) -> dict[str, list[str]]:
        """Script URLs (with store=<id>) by loading event; none while the store is suspended."""
        if self.store.suspended_at:
            return {}
        rows = (
            Script.objects.filter(
                store=self.store,
                where__contains="store",
                app__installations__store=self.store,
                app__installations__suspended_at__isnull=True,
            )
            .order_by("id")
            .values_list("src", "event")
        )
        found: dict[str, list[str]] = {}
        for src, event in rows:
            found.setdefault(event, []).append(with_store(src, self.store.pk))
        return found

    def context(self, **extra) -> dict:
        store = self.store
        categories = (
            Category.objects.filter(store=store, parent__isnull=True)
            .order_by("id")
            .values_list("id", "name")
        )
        ls = {
            "store": {"id": store.pk, "url": f"{settings.EXTERNAL_URL}/stores/{store.pk}/"},
            "lang": self.lang,
            "currency": self.currency,
            "country": store.country,
            "customer": None,
            "cart": {"subtotal": 0, "items": []},
            **extra.pop("ls", {}),
        }
        scripts = self.scripts()
        ls["scripts"] = {"onfirstinteraction": scripts.get("onfirstinteraction", [])}
        return {
            "shop": self,
            "store_name": self.text(store.name),
            "lang": self.lang,
            "languages": [(code, f"?lang={code}", code == self.lang) for code in store.languages],
            "nav": [(self.text(name), self.url(f"categories/{pk}/")) for pk, name in categories],
            "home_url": self.url(),
            "onload_scripts": scripts.get("onload", []),
            "ls": ls,
            **extra,
        }


def with_store(src: str, store_id: int) -> str:
    """The script URL with `store=<id>` in its query, as Tiendanube injects it."""
    parts = urlsplit(src)
    query = [(key, value) for key, value in parse_qsl(parts.query) if key != "store"]
    query.append(("store", str(store_id)))
    return urlunsplit(parts._replace(query=urlencode(query)))


def _cards(shop: Shop, products) -> list[dict]:
    cards = []
    for product in products:
        images = list(product.images.all())
        variants = list(product.variants.all())
        prices = [item.promotional_price or item.price for item in variants if item.price]
        cards.append(
            {
                "name": shop.text(product.name),
                "url": shop.url(f"products/{product.pk}/"),
                "image": images[0].src if images else "",
                "alt": _alt(shop, images[0].alt, shop.text(product.name)) if images else "",
                "price": shop.money(min(prices)) if prices else "",
                "from": len({*prices}) > 1,
            }
        )
    return cards


def _listing(shop: Shop, request, products):
    products = (
        products.filter(published=True)
        .order_by("-created_at", "-id")
        .prefetch_related(
            Prefetch("images", queryset=ProductImage.objects.order_by("position", "id")),
            Prefetch("variants", queryset=Variant.objects.order_by("position", "id")),
        )
    )
    page = Paginator(products, PRODUCTS_PER_PAGE).get_page(request.GET.get("page"))
    return page, _cards(shop, page.object_list)


def _alt(shop: Shop, alt, product_name: str) -> str:
    """An image's alt text in the page's language; the product's name when it has none."""
    if isinstance(alt, dict):
        alt = shop.text(alt)
    elif isinstance(alt, list):
        alt = next((shop.text(item) for item in alt if item), "")
    return alt or product_name


def home(request, store_id: int):
    if store_id > INT64_MAX:
        raise Http404("No such store")
    shop = Shop(request, get_object_or_404(Store, pk=store_id))
    page, cards = _listing(shop, request, Product.objects.filter(store=shop.store))
    context = shop.context(page=page, cards=cards, title=shop.text(shop.store.name))
    return render(request, "storefront/home.html", context)


def _find(model, request, store_id: int, key: str):
    """The store's category or product named by id or by handle (in any of its languages),
    with the page's Shop. By id, the store comes in the same query."""
    if store_id > INT64_MAX:
        raise Http404("No such store")
    if "\x00" in key:
        # No handle holds a NUL (PostgreSQL cannot even compare one).
        raise Http404("No such page in this store")
    # ASCII digits only: "²" passes str.isdigit but int() refuses it, as it refuses more
    # than 4300 digits (an int64 has 19).
    if key.isascii() and key.isdigit() and len(key) <= 19 and int(key) <= INT64_MAX:
        item = get_object_or_404(model.objects.select_related("store"), store=store_id, pk=key)
        return Shop(request, item.store), item
    shop = Shop(request, get_object_or_404(Store, pk=store_id))
    match = Q()
    for code in dict.fromkeys([shop.lang, *shop.store.languages]):
        match |= Q(**{f"handle__{code}": key})
    item = model.objects.filter(match, store=shop.store).order_by("id").first()
    if item is None:
        raise Http404("No such page in this store")
    item.store = shop.store
    return shop, item


def category(request, store_id: int, key: str):
    shop, item = _find(Category, request, store_id, key)
    page, cards = _listing(shop, request, item.products.all())
    name = shop.text(item.name)
    context = shop.context(
        ls={"category": {"id": item.pk, "name": name}},
        title=name,
        category_name=name,
        description=strip_tags(shop.text(item.description)),
        subcategories=[
            (shop.text(child.name), shop.url(f"categories/{child.pk}/"))
            for child in item.children.order_by("id")
        ],
        page=page,
        cards=cards,
    )
    return render(request, "storefront/category.html", context)


# The columns a product page shows; rows come as dicts (no model instances: 50 variants
# built as models cost more than the rest of the page).
VARIANT_COLUMNS = ("id", "sku", "values", "price", "promotional_price", "stock", "image_id")
IMAGE_COLUMNS = ("id", "src", "alt")


def _variant(shop: Shop, product_id: int, row: dict, images: dict, element: str) -> dict:
    price, promotional = row["price"], row["promotional_price"]
    shown = promotional or price
    image = images.get(row["image_id"])
    return {
        "id": row["id"],
        "product_id": product_id,
        "sku": row["sku"],
        "values": [shop.text(value) for value in row["values"]],
        "price": str(price) if price is not None else None,
        "price_number": float(shown) if shown is not None else None,
        "price_short": shop.money(shown),
        "compare_at_price_short": shop.money(price if promotional else None),
        "promotional_price": str(promotional) if promotional is not None else None,
        "stock": row["stock"],
        "available": row["stock"] is None or row["stock"] > 0,
        "image_id": row["image_id"],
        "image_url": image["src"] if image else None,
        "element": element,
    }


def _options(shop: Shop, attributes: list, variants: list[dict], chosen: dict | None):
    """One select per attribute: its distinct values in variant order, the chosen one set."""
    options = []
    for index, attribute in enumerate(attributes):
        values = dict.fromkeys(v["values"][index] for v in variants if len(v["values"]) > index)
        picked = chosen["values"][index] if chosen and len(chosen["values"]) > index else None
        options.append(
            {
                "index": index,
                "name": shop.text(attribute),
                "values": [(value, value == picked) for value in values],
            }
        )
    return options


def product(request, store_id: int, key: str):
    shop, item = _find(Product, request, store_id, key)
    if not item.published:
        raise Http404("No such product in this store")
    images = list(item.images.order_by("position", "id").values(*IMAGE_COLUMNS))
    by_id = {image["id"]: image for image in images}
    container = f"product-{item.pk}"
    variants = [
        _variant(shop, item.pk, row, by_id, f"#{container}")
        for row in item.variants.order_by("position", "id").values(*VARIANT_COLUMNS)
    ]
    chosen = next((v for v in variants if v["available"]), variants[0] if variants else None)
    name = shop.text(item.name)
    context = shop.context(
        ls={
            "product": {
                "id": item.pk,
                "name": name,
                "tags": [tag.strip() for tag in item.tags.split(",") if tag.strip()],
                "requires_shipping": item.requires_shipping,
            },
            "variants": variants,
        },
        title=name,
        product_name=name,
        description=strip_tags(shop.text(item.description)),
        images=[(image["src"], _alt(shop, image["alt"], name)) for image in images],
        container=container,
        options=_options(shop, item.attributes, variants, chosen),
        chosen=chosen,
    )
    return render(request, "storefront/product.html", context)
