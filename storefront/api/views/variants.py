"""A product's variants and their stock."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response

from storefront.api import filters
from storefront.api.filters import (
    TIME_FILTERS,
)
from storefront.api.serializers.catalog import (
    StockChangeSerializer,
    VariantWriteSerializer,
)
from storefront.api.serializers.records import (
    VARIANT,
)
from storefront.api.views.common import CatalogView
from storefront.models import Variant
from storefront.services import variants


@extend_schema_view(
    get=extend_schema(parameters=TIME_FILTERS.parameters, responses=VARIANT.serializer(many=True)),
    post=extend_schema(request=VariantWriteSerializer, responses={201: VARIANT.serializer}),
    put=extend_schema(
        operation_id="v1_products_variants_replace",
        request=VariantWriteSerializer(many=True),
        responses=VARIANT.serializer(many=True),
    ),
    patch=extend_schema(
        operation_id="v1_products_variants_update_many",
        request=VariantWriteSerializer(many=True),
        responses=VARIANT.serializer(many=True),
    ),
)
class VariantListView(CatalogView):
    serializer_class = VARIANT.serializer
    queryset = Variant.objects.all()

    def get(self, request, store_id, product_id):
        params = filters.validated(TIME_FILTERS, request)
        variants = self.product().variants.order_by("position", "id")
        return self.page(filters.filtered(TIME_FILTERS, variants, params), VARIANT)

    def post(self, request, store_id, product_id):
        variant = variants.create_variant(
            self.product(), self.validated_body(VariantWriteSerializer)
        )
        return self.answer(VARIANT, variant, status=201)

    def put(self, request, store_id, product_id):
        product = self.product()
        items = self.validated_body(
            VariantWriteSerializer,
            many=True,
            max_items=(variants.MAX_VARIANTS, variants.too_many_variants),
        )
        return self.answers(VARIANT, variants.replace_variants(product, items))

    def patch(self, request, store_id, product_id):
        product = self.product()
        # More ids than a product may have variants are duplicates or unknown ones.
        items = self.validated_body(
            VariantWriteSerializer,
            partial=True,
            many=True,
            max_items=(variants.MAX_VARIANTS, variants.too_many_variants),
        )
        return self.answers(VARIANT, variants.update_variants(product, items))


@extend_schema_view(
    post=extend_schema(
        request=StockChangeSerializer, responses={200: VARIANT.serializer(many=True)}
    ),
)
class VariantStockView(CatalogView):
    serializer_class = VARIANT.serializer
    queryset = Variant.objects.all()

    def post(self, request, store_id, product_id):
        change = self.validated_body(StockChangeSerializer)
        changed = variants.change_stock(
            self.product(), change["action"], change["value"], change.get("id")
        )
        return self.answers(VARIANT, changed)


@extend_schema_view(
    put=extend_schema(request=VariantWriteSerializer, responses=VARIANT.serializer),
)
class VariantDetailView(CatalogView):
    serializer_class = VARIANT.serializer
    queryset = Variant.objects.all()

    def variant(self) -> Variant:
        variants = Variant.objects.filter(product=self.product())
        return self.one(variants, self.kwargs["variant_id"], "Variant")

    def get(self, request, store_id, product_id, variant_id):
        return self.answer(VARIANT, self.variant())

    def put(self, request, store_id, product_id, variant_id):
        data = self.validated_body(VariantWriteSerializer, partial=True)
        return self.answer(VARIANT, variants.update_variant(self.variant(), data))

    def delete(self, request, store_id, product_id, variant_id):
        variants.delete_variant(self.variant())
        return Response({})
