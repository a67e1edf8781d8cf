"""Store API views: thin. Conventions live on TiendanubeViewMixin, wire names in the
serializers and records, rules in storefront.services, query parameters in filters."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from config.plain_json import mark_plain
from storefront.api import filters, rows, stock_price
from storefront.api.base import TiendanubeViewMixin
from storefront.api.filters import (
    CATEGORY_FILTERS,
    IMAGE_FILTERS,
    PRODUCT_FILTERS,
    SCRIPT_FILTERS,
    TIME_FILTERS,
)
from storefront.api.serializers.catalog import (
    CategoryWriteSerializer,
    ProductImageWriteSerializer,
    ProductWriteSerializer,
    StockChangeSerializer,
    VariantWriteSerializer,
)
from storefront.api.serializers.records import (
    CATEGORY,
    PRODUCT,
    PRODUCT_IMAGE,
    SCRIPT,
    VARIANT,
)
from storefront.api.serializers.store import ScriptWriteSerializer, StoreSerializer
from storefront.models import Category, Product, ProductImage, Script, Store, Variant
from storefront.services import categories, images, products, scripts, variants


class StoreView(TiendanubeViewMixin, GenericAPIView):
    serializer_class = StoreSerializer
    queryset = Store.objects.all()

    def get(self, request, store_id):
        return Response(self.get_serializer(self.store).data)


class CatalogView(TiendanubeViewMixin, GenericAPIView):
    resource_scope = "products"

    def validated_body(self, serializer_class, partial: bool = False, many: bool = False):
        serializer = serializer_class(
            data=request_data(self.request, many),
            partial=partial,
            many=many,
            context=self.get_serializer_context(),
        )
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def products(self):
        return Product.objects.filter(store=self.store)

    def product_page(self, pages: rows.ProductPages):
        page = self.paginate_queryset(pages)
        return mark_plain(self.get_paginated_response(rows.render_products(self.store, page)))

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


def request_data(request, many: bool):
    """The body; PUT may come without one (Content-Length zero)."""
    data = request.data
    if many:
        return data if isinstance(data, list) else []
    return data if isinstance(data, dict) else {}


# --- products --------------------------------------------------------------------------


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


# --- variants --------------------------------------------------------------------------


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
        items = self.validated_body(VariantWriteSerializer, many=True)
        return self.answers(VARIANT, variants.replace_variants(product, items))

    def patch(self, request, store_id, product_id):
        product = self.product()
        items = self.validated_body(VariantWriteSerializer, partial=True, many=True)
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


# --- images ----------------------------------------------------------------------------


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


# --- categories ------------------------------------------------------------------------


class CategoryView(CatalogView):
    serializer_class = CATEGORY.serializer
    queryset = Category.objects.all()

    def categories(self):
        return Category.objects.filter(store=self.store)

    def category(self) -> Category:
        return self.one(
            Category.objects.filter(store=self.store).select_related("store"),
            self.kwargs["category_id"],
            "Category",
        )

    def one_category(self, pk, status: int = 200):
        found = rows.read(rows.values(self.categories().filter(pk=pk), CATEGORY))
        if not found:
            raise NotFound("Category with such id does not exist")
        return mark_plain(Response(rows.render_categories(self.store, found)[0], status=status))


@extend_schema_view(
    get=extend_schema(
        parameters=CATEGORY_FILTERS.parameters, responses=CATEGORY.serializer(many=True)
    ),
    post=extend_schema(request=CategoryWriteSerializer, responses={201: CATEGORY.serializer}),
)
class CategoryListView(CategoryView):
    def get(self, request, store_id):
        params = filters.validated(CATEGORY_FILTERS, request)
        found = filters.filtered(CATEGORY_FILTERS, self.categories(), params, self.store)
        page = self.paginate_queryset(rows.Rows(rows.values(found.order_by("id"), CATEGORY)))
        return mark_plain(self.get_paginated_response(rows.render_categories(self.store, page)))

    def post(self, request, store_id):
        category = categories.create_category(
            self.store, self.validated_body(CategoryWriteSerializer)
        )
        return self.one_category(category.pk, status=201)


@extend_schema_view(
    put=extend_schema(request=CategoryWriteSerializer, responses=CATEGORY.serializer),
)
class CategoryDetailView(CategoryView):
    def get(self, request, store_id, category_id):
        return self.one_category(category_id)

    def put(self, request, store_id, category_id):
        data = self.validated_body(CategoryWriteSerializer, partial=True)
        categories.update_category(self.category(), data)
        return self.one_category(category_id)

    def delete(self, request, store_id, category_id):
        categories.delete_category(self.category())
        return Response({})


# --- scripts ---------------------------------------------------------------------------


class ScriptView(CatalogView):
    resource_scope = "scripts"
    serializer_class = SCRIPT.serializer
    queryset = Script.objects.all()

    def scripts(self):
        """An app sees and changes only its own scripts."""
        return Script.objects.filter(store=self.store, app_id=self.request.auth.app_id)


@extend_schema_view(
    get=extend_schema(parameters=SCRIPT_FILTERS.parameters, responses=SCRIPT.serializer(many=True)),
    post=extend_schema(request=ScriptWriteSerializer, responses={201: SCRIPT.serializer}),
)
class ScriptListView(ScriptView):
    def get(self, request, store_id):
        params = filters.validated(SCRIPT_FILTERS, request)
        found = filters.filtered(SCRIPT_FILTERS, self.scripts(), params)
        return self.page(found.order_by("id"), SCRIPT)

    def post(self, request, store_id):
        data = self.validated_body(ScriptWriteSerializer)
        script = scripts.create_script(self.store, self.request.auth.app, data)
        return self.answer(SCRIPT, script, status=201)


@extend_schema_view(
    put=extend_schema(request=ScriptWriteSerializer, responses=SCRIPT.serializer),
)
class ScriptDetailView(ScriptView):
    def get(self, request, store_id, script_id):
        return self.answer(SCRIPT, self.one(self.scripts(), script_id, "Script"))

    def put(self, request, store_id, script_id):
        data = self.validated_body(ScriptWriteSerializer, partial=True)
        script = self.one(self.scripts(), script_id, "Script")
        return self.answer(SCRIPT, scripts.update_script(script, data))

    def delete(self, request, store_id, script_id):
        scripts.delete_script(self.one(self.scripts(), script_id, "Script"))
        return Response({})
