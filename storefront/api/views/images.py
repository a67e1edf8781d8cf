"""A product's images."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response

from storefront.api import filters
from storefront.api.filters import (
    IMAGE_FILTERS,
)
from storefront.api.serializers.catalog import (
    ProductImageWriteSerializer,
)
from storefront.api.serializers.records import (
    PRODUCT_IMAGE,
)
from storefront.api.views.common import CatalogView
from storefront.models import ProductImage
from storefront.services import images


@extend_schema_view(
    get=extend_schema(
        parameters=IMAGE_FILTERS.parameters, responses=PRODUCT_IMAGE.serializer(many=True)
    ),
    post=extend_schema(
        request=ProductImageWriteSerializer, responses={201: PRODUCT_IMAGE.serializer}
    ),
)
class ImageListView(CatalogView):
    serializer_class = PRODUCT_IMAGE.serializer
    queryset = ProductImage.objects.all()

    def get(self, request, store_id, product_id):
        params = filters.validated(IMAGE_FILTERS, request)
        product_images = self.product().images.order_by("position", "id")
        return self.page(filters.filtered(IMAGE_FILTERS, product_images, params), PRODUCT_IMAGE)

    def post(self, request, store_id, product_id):
        data = self.validated_body(ProductImageWriteSerializer)
        return self.answer(PRODUCT_IMAGE, images.create_image(self.product(), data), status=201)


@extend_schema_view(
    put=extend_schema(request=ProductImageWriteSerializer, responses=PRODUCT_IMAGE.serializer),
)
class ImageDetailView(CatalogView):
    serializer_class = PRODUCT_IMAGE.serializer
    queryset = ProductImage.objects.all()

    def image(self) -> ProductImage:
        images = ProductImage.objects.filter(product=self.product())
        return self.one(images, self.kwargs["image_id"], "Image")

    def get(self, request, store_id, product_id, image_id):
        return self.answer(PRODUCT_IMAGE, self.image())

    def put(self, request, store_id, product_id, image_id):
        data = self.validated_body(ProductImageWriteSerializer, partial=True)
        return self.answer(PRODUCT_IMAGE, images.update_image(self.image(), data))

    def delete(self, request, store_id, product_id, image_id):
        images.delete_image(self.image())
        return Response({})
