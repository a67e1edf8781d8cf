"""OpenAPI for the code hosting API: every operation documents Gitea's error answers."""

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers


class GiteaErrorSerializer(serializers.Serializer):
    """{"message", "url"}; 404 adds "errors"; the topics 422 adds "invalidTopics"."""

    message = serializers.CharField()
    url = serializers.CharField(required=False)
    errors = serializers.ListField(child=serializers.CharField(), allow_null=True, required=False)
    invalidTopics = serializers.ListField(child=serializers.CharField(), required=False)


class GiteaAutoSchema(AutoSchema):
    error_statuses = ["400", "401", "403", "404", "409", "422"]

    def map_parsers(self):
        # JSON is the documented body format; urlencoded and multipart forms are also
        # accepted, as by Gitea's binder, but not advertised.
        return ["application/json"]

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in self.error_statuses:
            if status not in responses:
                responses[status] = self._get_response_for_code(GiteaErrorSerializer, status)
        # Repository paths answer a rename redirect from the old name.
        if "{repo}" in self.path and "301" not in responses:
            responses["301"] = {"description": "Moved Permanently (renamed repository)"}
        return responses
