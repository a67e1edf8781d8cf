"""Products: the list, one product, by SKU, stock and price in bulk."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from storefront.api import filters, rows, stock_price
from storefront.api.filters import (
    PRODUCT_FILTERS,
)
from storefront.api.serializers.catalog import (
    ProductWriteSerializer,
)
from storefront.api.serializers.records import (
    PRODUCT,
)
from storefront.api.views.common import CatalogView, listed, request_data
from storefront.models import Product, Variant
from storefront.services import images, products, variants


@extend_schema_view(
    get=extend_schema(
        parameters=PRODUCT_FILTERS.parameters, responses=PRODUCT.serializer(many=True)
    ),
    post=extend_schema(request=ProductWriteSerializer, responses={201: PRODUCT.serializer}),
)
class ProductListView(CatalogView):
    serializer_class = PRODUCT.serializer
    queryset = Product.objects.all()

    def get(self, request, store_id):
        params = filters.validated(PRODUCT_FILTERS, request)

        filtered = filters.filter_products(self.products(), params, self.store)
        ordered = filters.sort_products(filtered, params["sort_by"], self.store)
        return self.product_page(rows.ProductPages(ordered))

    def post(self, request, store_id):
        body = request_data(request, many=False)
        # The service's limits, before each variant and image is validated (300,000 variants
        # took a minute of a web thread to be refused).
        if len(listed(body, "variants")) > variants.MAX_VARIANTS:
            raise variants.too_many_variants()
        if len(listed(body, "images")) > images.MAX_IMAGES:
            raise images.too_many_images()
        product = products.create_product(self.store, self.validated_body(ProductWriteSerializer))
        return self.one_product(self.products().filter(pk=product.pk), status=201)


@extend_schema_view(
    put=extend_schema(request=ProductWriteSerializer, responses=PRODUCT.serializer),
)
class ProductDetailView(CatalogView):
    serializer_class = PRODUCT.serializer
    queryset = Product.objects.all()

    def get(self, request, store_id, product_id):
        return self.one_product(self.products().filter(pk=product_id))

    def put(self, request, store_id, product_id):
        data = self.validated_body(ProductWriteSerializer, partial=True)
        products.update_product(self.product(), data)
        return self.one_product(self.products().filter(pk=product_id))

    def delete(self, request, store_id, product_id):
        products.delete_product(self.product())
        return Response({})


class StockPriceView(CatalogView):
    """PATCH /products/stock-price (see `storefront.api.stock_price`)."""

    serializer_class = PRODUCT.serializer
    queryset = Product.objects.all()

    @extend_schema(
        operation_id="v1_products_stock_price",
        request={"application/json": stock_price.REQUEST_SCHEMA},
        responses={200: stock_price.RESPONSE_SCHEMA},
    )
    def patch(self, request, store_id):
        changes = stock_price.parse(request.data)
        return Response(variants.update_stock_price(self.store, changes))


class ProductBySkuView(CatalogView):
    serializer_class = PRODUCT.serializer
    queryset = Product.objects.all()

    def get(self, request, store_id, sku):
        if "\x00" in sku:
            raise NotFound("Product with such sku does not exist")
        having = Variant.objects.filter(store=self.store, sku=sku).values("product_id")
        matching = self.products().filter(pk__in=having).order_by("id")
        return self.one_product(matching, missing="Product with such sku")
