"""Directory (LDAP) endpoints: ping, user and group search, user import (harbor.md §10).

Admin only. Searches and imports use the stored system configuration; a ping tests the
configuration in its body, completed from the stored one.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.ldap_serializers import (
    LdapConfSerializer,
    LdapFailedImportUserSerializer,
    LdapImportUsersSerializer,
    LdapPingResultSerializer,
    LdapUserSerializer,
    group_search_data,
)
from registry.api.permissions import require_sysadmin
from registry.api.serializers.projects import USER_GROUP
from registry.errors import NotFound
from registry.ldap import client, directory, onboarding

# Besides Harbor's statuses: 409 while LDAP is not configured, 503 when the directory is
# down or does not answer within ldap_timeout.
DIRECTORY_ERRORS = (400, 401, 403, 409, 503)


class LdapView(HarborViewMixin, APIView):
    # Harbor does not page the /ldap answers.
    pagination_class = None


class LdapPingView(LdapView):
    @extend_schema(
        operation_id="pingLdap",
        request=LdapConfSerializer,
        responses=schema.responses(LdapPingResultSerializer, 400, 401, 403),
    )
    def post(self, request):
        require_sysadmin(request)
        # No body at all tests the stored configuration; a body must be an LdapConf object.
        sent = int(request.META.get("CONTENT_LENGTH") or 0) > 0
        body = self.body(LdapConfSerializer, required=sent)
        changes = {
            key: body[field]
            for field, key in LdapConfSerializer.CONFIGURATION_KEYS.items()
            if field in body
        }
        error = directory.ping_configuration(changes, body.get("ldap_search_password") or "")
        result = {"success": False, "message": error} if error else {"success": True}
        return Response(LdapPingResultSerializer(result).data)


class LdapUserSearchView(LdapView):
    @extend_schema(
        operation_id="searchLdapUser",
        parameters=[schema.query("username")],
        responses=schema.responses(LdapUserSerializer(many=True), *DIRECTORY_ERRORS),
    )
    def get(self, request):
        require_sysadmin(request)
        username = request.query_params.get("username", "")
        users = directory.search_users(client.current_settings(), username)
        return Response(LdapUserSerializer(users, many=True).data)


class LdapUserImportView(LdapView):
    @extend_schema(
        operation_id="importLdapUser",
        request=LdapImportUsersSerializer,
        responses={
            **schema.responses(None, *DIRECTORY_ERRORS),
            404: OpenApiResponse(
                LdapFailedImportUserSerializer(many=True), description="failed imports"
            ),
        },
    )
    def post(self, request):
        require_sysadmin(request)
        body = self.body(LdapImportUsersSerializer)
        uids = body.get("ldap_uid_list") or []
        failures = onboarding.import_users(uids) if uids else []
        if failures:
            return Response(LdapFailedImportUserSerializer(failures, many=True).data, status=404)
        return self.empty()


class LdapGroupSearchView(LdapView):
    @extend_schema(
        operation_id="searchLdapGroup",
        parameters=[schema.query("groupname"), schema.query("groupdn")],
        responses=schema.responses(USER_GROUP.serializer(many=True), 404, *DIRECTORY_ERRORS),
    )
    def get(self, request):
        require_sysadmin(request)
        name = request.query_params.get("groupname", "")
        dn = request.query_params.get("groupdn", "")
        conf = client.current_settings()
        groups = []
        if name:
            groups = directory.search_groups(conf, name)
        elif dn:
            found = directory.group_by_dn(conf, dn)
            groups = [found] if found else []
        if not groups:
            raise NotFound(f"resource not found: group name:{name}, group DN:{dn}")
        return Response(group_search_data(groups))
