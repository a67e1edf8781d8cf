"""Directory (LDAP) endpoints: ping, user and group search, user import (harbor.md §10).

Admin only. Searches and imports use the stored system configuration; a ping tests the
configuration in its body, completed from the stored one.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from registry import configuration, ldap_onboarding
from registry import ldap as directory
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
from registry.api.serializers.projects import UserGroupSerializer
from registry.errors import NotFound

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
        stored = configuration.values()
        values = dict(stored)
        for field, key in LdapConfSerializer.CONFIGURATION_KEYS.items():
            if field in body:
                values[key] = body[field]
        # The stored password is only ever sent to the stored server.
        same_server = values["ldap_url"].strip() == stored["ldap_url"].strip()
        values["ldap_search_password"] = body.get("ldap_search_password") or (
            stored["ldap_search_password"] if same_server else ""
        )
        conf = directory.DirectorySettings.from_config(values)
        if not conf.search_password and conf.search_dn:
            result = {"success": False, "message": "error: empty password"}
        else:
            try:
                directory.ping(conf)
                result = {"success": True}
            except directory.DirectoryError as exc:
                result = {"success": False, "message": f"error: {exc.message}"}
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
        users = directory.search_users(directory.current_settings(), username)
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
        failures = ldap_onboarding.import_users(uids) if uids else []
        if failures:
            return Response(LdapFailedImportUserSerializer(failures, many=True).data, status=404)
        return self.empty()


class LdapGroupSearchView(LdapView):
    @extend_schema(
        operation_id="searchLdapGroup",
        parameters=[schema.query("groupname"), schema.query("groupdn")],
        responses=schema.responses(UserGroupSerializer(many=True), 404, *DIRECTORY_ERRORS),
    )
    def get(self, request):
        require_sysadmin(request)
        name = request.query_params.get("groupname", "")
        dn = request.query_params.get("groupdn", "")
        conf = directory.current_settings()
        groups = []
        if name:
            groups = directory.search_groups(conf, name)
        elif dn:
            found = directory.group_by_dn(conf, dn)
            groups = [found] if found else []
        if not groups:
            raise NotFound(f"resource not found: group name:{name}, group DN:{dn}")
        return Response(group_search_data(groups))
