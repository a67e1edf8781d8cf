"""Directory (LDAP) endpoints: ping, user and group search, user import (harbor.md §10).

Admin only. Searches and imports use the stored system configuration; a ping tests the
configuration in its body, completed from the stored one.
"""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from registry import access, configuration, ldap_onboarding
from registry import ldap as directory
from registry.api.base import HarborViewMixin
from registry.api.ldap_serializers import (
    LdapConfSerializer,
    LdapFailedImportUserSerializer,
    LdapImportUsersSerializer,
    LdapPingResultSerializer,
    LdapUserGroupSerializer,
    LdapUserSerializer,
    validated,
)
from registry.errors import Forbidden, NotFound


class IsSystemAdmin(BasePermission):
    """401 for anonymous callers, 403 with the caller's username for everyone else."""

    def has_permission(self, request, view):
        if not request.user.is_authenticated:
            raise NotAuthenticated("unauthorized")
        if not access.is_sysadmin(request.user):
            raise Forbidden(request.user.get_username())
        return True


ErrorResponse = OpenApiResponse(
    response=serializers.JSONField(), description="Harbor error body {errors: [...]}"
)
ADMIN_ERRORS = {400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse}


class LdapViewMixin(HarborViewMixin):
    permission_classes = [IsSystemAdmin]


class LdapPingView(LdapViewMixin, APIView):
    @extend_schema(
        operation_id="pingLdap",
        request=LdapConfSerializer,
        responses={200: LdapPingResultSerializer, **ADMIN_ERRORS},
    )
    def post(self, request):
        body = validated(LdapConfSerializer, request.data or {})
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


class LdapUserSearchView(LdapViewMixin, APIView):
    @extend_schema(
        operation_id="searchLdapUser",
        parameters=[OpenApiParameter("username", str, required=False)],
        responses={200: LdapUserSerializer(many=True), **ADMIN_ERRORS},
    )
    def get(self, request):
        username = request.query_params.get("username", "")
        users = directory.search_users(directory.current_settings(), username)
        return Response(LdapUserSerializer(users, many=True).data)


class LdapUserImportView(LdapViewMixin, APIView):
    @extend_schema(
        operation_id="importLdapUser",
        request=LdapImportUsersSerializer,
        responses={
            200: OpenApiResponse(description="all users imported"),
            404: LdapFailedImportUserSerializer(many=True),
            **ADMIN_ERRORS,
        },
    )
    def post(self, request):
        body = validated(LdapImportUsersSerializer, request.data)
        uids = body.get("ldap_uid_list") or []
        failures = ldap_onboarding.import_users(uids) if uids else []
        if failures:
            return Response(LdapFailedImportUserSerializer(failures, many=True).data, status=404)
        return Response(status=200)


class LdapGroupSearchView(LdapViewMixin, APIView):
    @extend_schema(
        operation_id="searchLdapGroup",
        parameters=[
            OpenApiParameter("groupname", str, required=False),
            OpenApiParameter("groupdn", str, required=False),
        ],
        responses={200: LdapUserGroupSerializer(many=True), 404: ErrorResponse, **ADMIN_ERRORS},
    )
    def get(self, request):
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
        return Response(LdapUserGroupSerializer(groups, many=True).data)
