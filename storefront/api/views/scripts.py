"""Scripts an app installs in the store."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response

from storefront.api import filters
from storefront.api.filters import (
    SCRIPT_FILTERS,
)
from storefront.api.serializers.records import (
    SCRIPT,
)
from storefront.api.serializers.store import ScriptWriteSerializer
from storefront.api.views.common import CatalogView
from storefront.models import Script
from storefront.services import scripts


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
