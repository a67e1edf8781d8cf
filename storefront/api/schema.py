"""OpenAPI for the store API: every operation documents Tiendanube's error answers, the
`fields` trimming parameter, bounded integer ids, and DELETE's 200 `{}`."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter

from config.limits import INT64_MAX

ERROR_ANSWERS = {
    "400": 'Invalid JSON ({"error": ...}) or missing User-Agent',
    "401": "Missing or invalid access token, or a token of another store",
    "402": "The store or the app's subscription is unpaid",
    "403": "The app lacks the scope this resource needs",
    "404": "No such resource",
    "415": "A body was sent without Content-Type application/json",
    "422": 'Invalid fields ({"field": ["message"]}) or a refused business rule',
    "429": "The store+app rate-limit bucket is full",
}
ERROR_BODY = {
    "type": "object",
    "description": '{"code", "message", "description"}, {"field": ["message"]} or {"error": ...}',
}


class TiendanubeAutoSchema(AutoSchema):
    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        if self.method == "GET":
            parameters.append(
                OpenApiParameter(
                    "fields", str, description="Comma-separated keys to keep in the answer"
                )
            )
        return parameters

    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction == "response":
            # `fields=` may leave out any key of an answer.
            schema.pop("required", None)
        return schema

    def _resolve_path_parameters(self, variables):
        parameters = super()._resolve_path_parameters(variables)
        for parameter in parameters:
            if parameter["schema"].get("type") == "integer":
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": INT64_MAX}
        return parameters

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if self.method == "DELETE":
            responses.pop("204", None)
            responses["200"] = {
                "description": "Deleted",
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        for status, description in ERROR_ANSWERS.items():
            responses.setdefault(
                status,
                {
                    "description": description,
                    "content": {"application/json": {"schema": ERROR_BODY}},
                },
            )
        return responses


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "storefront.api.authentication.BearerTokenAuthentication"
    name = "tiendanubeAccessToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authentication",
            "description": "`bearer <access token>` (`Authorization: Bearer <token>` works too)",
        }
