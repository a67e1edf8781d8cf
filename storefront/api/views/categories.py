"""Categories."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from config.plain_json import mark_plain
from storefront.api import filters, rows
from storefront.api.filters import (
    CATEGORY_FILTERS,
)
from storefront.api.serializers.catalog import (
    CategoryWriteSerializer,
)
from storefront.api.serializers.records import (
    CATEGORY,
)
from storefront.api.views.common import CatalogView
from storefront.models import Category
from storefront.services import categories


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
