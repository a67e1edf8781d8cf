"""What every store API view shares: the store itself, the catalog base view (the
store's rows, one product rendered, bodies validated), request bodies."""

from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from config.plain_json import mark_plain
from storefront.api import product_json, rows
from storefront.api.base import TiendanubeViewMixin
from storefront.api.serializers.records import (
    PRODUCT,
)
from storefront.api.serializers.store import StoreSerializer
from storefront.models import Product, Store


class StoreView(TiendanubeViewMixin, GenericAPIView):
    serializer_class = StoreSerializer
    queryset = Store.objects.all()

    def get(self, request, store_id):
        return Response(self.get_serializer(self.store).data)


class CatalogView(TiendanubeViewMixin, GenericAPIView):
    resource_scope = "products"

    def validated_body(
        self, serializer_class, partial: bool = False, many: bool = False, max_items=None
    ):
        data = request_data(self.request, many)
        if many and max_items is not None and len(data) > max_items[0]:
            # Before each item is validated: 300,000 of them took a minute of a thread.
            raise max_items[1]()
        serializer = serializer_class(
            data=data,
            partial=partial,
            many=many,
            context=self.get_serializer_context(),
        )
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def products(self):
        return Product.objects.filter(store=self.store)

    def product_page(self, pages: rows.ProductPages):
        ids = self.paginate_queryset(pages)
        # `fields` trims the objects after rendering: those are Python's.
        body = None
        if "fields" not in self.request.query_params:
            body = product_json.page_body(self.store, ids)
        if body is None:
            body = rows.render_products(self.store, rows.product_rows(ids))
        return mark_plain(self.get_paginated_response(body))

    def one_product(self, queryset, status: int = 200, missing: str = "Product with such id"):
        found = rows.render_products(self.store, rows.read(rows.values(queryset, PRODUCT)[:1]))
        if not found:
            raise NotFound(f"{missing} does not exist")
        return mark_plain(Response(found[0], status=status))

    def product(self) -> Product:
        return self.one(
            Product.objects.filter(store=self.store).select_related("store"),
            self.kwargs["product_id"],
            "Product",
        )

    @staticmethod
    def one(queryset, pk, kind: str):
        found = queryset.filter(pk=pk).first()
        if found is None:
            raise NotFound(f"{kind} with such id does not exist")
        return found


def listed(body: dict, key: str) -> list:
    return body[key] if isinstance(body.get(key), list) else []


def request_data(request, many: bool):
    """The body; PUT may come without one (Content-Length zero)."""
    data = request.data
    if many:
        return data if isinstance(data, list) else []
    return data if isinstance(data, dict) else {}
