"""/v1/{store_id}/webhooks: an app registers, lists, changes and deletes its own webhooks."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from storefront.api import filters
from storefront.api.base import TiendanubeViewMixin
from storefront.api.filters import WEBHOOK_FILTERS
from storefront.api.serializers.records import WEBHOOK
from storefront.api.views.common import request_data
from storefront.api.webhook_serializers import WebhookWriteSerializer
from storefront.models import Webhook
from storefront.services import webhooks


class WebhookView(TiendanubeViewMixin, GenericAPIView):
    serializer_class = WEBHOOK.serializer
    queryset = Webhook.objects.all()

    def webhooks(self):
        """Webhooks are per app and store: an app sees only those it registered."""
        return Webhook.objects.filter(installation=self.request.auth)

    def webhook(self) -> Webhook:
        found = self.webhooks().filter(pk=self.kwargs["webhook_id"]).first()
        if found is None:
            webhooks.require_installed(self.request.auth)
            raise NotFound("Webhook with such id does not exist")
        # The caller's installation as authenticated: read again, it may be gone already.
        found.installation = self.request.auth
        return found

    def body(self, partial: bool) -> dict:
        serializer = WebhookWriteSerializer(data=request_data(self.request, False), partial=partial)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


@extend_schema_view(
    get=extend_schema(
        parameters=WEBHOOK_FILTERS.parameters, responses=WEBHOOK.serializer(many=True)
    ),
    post=extend_schema(request=WebhookWriteSerializer, responses={201: WEBHOOK.serializer}),
)
class WebhookListView(WebhookView):
    def get(self, request, store_id):
        params = filters.validated(WEBHOOK_FILTERS, request)
        found = filters.filtered(WEBHOOK_FILTERS, self.webhooks(), params)
        return self.page(found.order_by("id"), WEBHOOK)

    def post(self, request, store_id):
        data = self.body(partial=False)
        webhook = webhooks.create_webhook(request.auth, **data)
        return self.answer(WEBHOOK, webhook, status=201)


@extend_schema_view(
    put=extend_schema(request=WebhookWriteSerializer, responses=WEBHOOK.serializer),
)
class WebhookDetailView(WebhookView):
    def get(self, request, store_id, webhook_id):
        return self.answer(WEBHOOK, self.webhook())

    def put(self, request, store_id, webhook_id):
        data = self.body(partial=True)
        return self.answer(WEBHOOK, webhooks.update_webhook(self.webhook(), **data))

    def delete(self, request, store_id, webhook_id):
        webhooks.delete_webhook(self.webhook())
        return Response({})
