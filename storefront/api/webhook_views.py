"""/v1/{store_id}/webhooks: an app registers, lists, changes and deletes its own webhooks."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from storefront.api import filters
from storefront.api.base import TiendanubeViewMixin
from storefront.api.views import request_data
from storefront.api.webhook_serializers import (
    WebhookFilters,
    WebhookSerializer,
    WebhookWriteSerializer,
)
from storefront.models import Webhook
from storefront.services import webhooks


class WebhookView(TiendanubeViewMixin, GenericAPIView):
    serializer_class = WebhookSerializer
    queryset = Webhook.objects.all()

    def webhooks(self):
        """Webhooks are per app and store: an app sees only those it registered."""
        return Webhook.objects.filter(installation=self.request.auth)

    def webhook(self) -> Webhook:
        found = self.webhooks().filter(pk=self.kwargs["webhook_id"]).first()
        if found is None:
            raise NotFound("Webhook with such id does not exist")
        return found

    def body(self, partial: bool) -> dict:
        serializer = WebhookWriteSerializer(data=request_data(self.request, False), partial=partial)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


@extend_schema_view(
    get=extend_schema(parameters=[WebhookFilters], responses=WebhookSerializer(many=True)),
    post=extend_schema(request=WebhookWriteSerializer, responses={201: WebhookSerializer}),
)
class WebhookListView(WebhookView):
    def get(self, request, store_id):
        params = filters.validated(WebhookFilters, request)
        queryset = filters.filter_by_time(self.webhooks(), params)
        for field in ("url", "event"):
            if field in params:
                queryset = queryset.filter(**{field: params[field]})
        page = self.paginate_queryset(queryset.order_by("id"))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def post(self, request, store_id):
        data = self.body(partial=False)
        webhook = webhooks.create_webhook(request.auth, **data)
        return Response(self.get_serializer(webhook).data, status=201)


@extend_schema_view(
    put=extend_schema(request=WebhookWriteSerializer, responses=WebhookSerializer),
)
class WebhookDetailView(WebhookView):
    def get(self, request, store_id, webhook_id):
        return Response(self.get_serializer(self.webhook()).data)

    def put(self, request, store_id, webhook_id):
        data = self.body(partial=True)
        webhook = webhooks.update_webhook(self.webhook(), **data)
        return Response(self.get_serializer(webhook).data)

    def delete(self, request, store_id, webhook_id):
        self.webhook().delete()
        return Response({})
