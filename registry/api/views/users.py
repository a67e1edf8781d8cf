"""Users (Django accounts seen as Harbor users) and user groups."""

from datetime import datetime

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config import signin_throttle
from config.filters import Param, QueryFilters
from registry import access, configuration, ldap_onboarding, services
from registry.api import schema
from registry.api.base import HarborViewMixin
from registry.api.filters import PAGING, Column, QuerySpec, listing, optional
from registry.api.permissions import require_login, require_sysadmin
from registry.api.serializers.projects import UserGroupSearchItemSerializer, UserGroupSerializer
from registry.api.serializers.users import (
    PasswordReqSerializer,
    UserCreationReqSerializer,
    UserGroupReqSerializer,
    UserGroupUpdateSerializer,
    UserProfileSerializer,
    UserRespSerializer,
    UserSearchRespItemSerializer,
    UserSysAdminFlagSerializer,
)
from registry.errors import Forbidden, NotFound, PreconditionFailed
from registry.ldap import ldap_mode
from registry.models import UserGroup

User = get_user_model()

USER_QUERY = QuerySpec(
    columns={
        "user_id": Column("pk", int),
        "username": Column("username"),
        "email": Column("email"),
        "realname": Column("harbor_profile__realname"),
        "comment": Column("harbor_profile__comment"),
        "sysadmin_flag": Column("is_superuser", bool),
        "creation_time": Column("date_joined", datetime),
        "update_time": Column("date_joined", datetime),
    },
    default_order=("username", "pk"),
)
USER_LISTING = listing(USER_QUERY)


def users():
    return User.objects.filter(is_active=True).select_related("harbor_profile")


def get_user(user_id: int):
    user = users().filter(pk=user_id).first()
    if user is None:
        raise NotFound(f"user {user_id} not found")
    return user


class UserListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listUsers",
        parameters=USER_LISTING.parameters,
        responses=schema.responses(UserRespSerializer(many=True), 401, 403),
    )
    def get(self, request):
        require_sysadmin(request)
        queryset = users()
        params = request.query_params
        if params.get("username"):
            queryset = queryset.filter(username__icontains=params["username"])
        if params.get("email"):
            queryset = queryset.filter(email__icontains=params["email"])
        # Harbor leaves the built-in admin out unless the query asks for a user id.
        if "user_id" not in (params.get("q") or ""):
            queryset = queryset.exclude(pk=_builtin_admin_id())
        return self.list_response(USER_LISTING.filter(queryset, params), UserRespSerializer)

    @extend_schema(
        operation_id="createUser",
        request=UserCreationReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        if configuration.get("auth_mode") != "db_auth":
            raise Forbidden(
                f"creating local user is not allowed under auth mode: "
                f"{configuration.get('auth_mode')}"
            )
        if not access.is_sysadmin(request.user):
            if configuration.get("self_registration"):
                raise Forbidden("self-registration cannot be triggered via API")
            require_sysadmin(request)
        body = self.body(UserCreationReqSerializer)
        user = services.create_user(
            body["username"],
            body["email"],
            body["password"],
            realname=body.get("realname", ""),
            comment=body.get("comment", ""),
        )
        return self.empty(201, f"{request.path.rstrip('/')}/{user.pk}")


def _builtin_admin_id() -> int:
    return (
        User.objects.filter(is_superuser=True).order_by("pk").values_list("pk", flat=True).first()
        or 0
    )


class CurrentUserView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getCurrentUserInfo",
        responses=schema.responses(UserRespSerializer, 401, 412),
    )
    def get(self, request):
        require_login(request)
        if access.robot_of(request.user):
            raise PreconditionFailed("get current user not available for security context: robot")
        return Response(UserRespSerializer(get_user(request.user.pk)).data)


class UserSearchView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="searchUsers",
        parameters=[*schema.PAGE, schema.query("username", required=True)],
        responses=schema.responses(UserSearchRespItemSerializer(many=True), 401),
    )
    def get(self, request):
        require_login(request)
        username = self.query_required("username")
        matches = users().filter(username__icontains=username).order_by("username", "pk")
        size = self.paginator.get_page_size(request)
        # Harbor ignores `page` here: always the first page_size matches, with the full count.
        rows = list(matches[:size]) if size else list(matches)
        response = Response(UserSearchRespItemSerializer(rows, many=True).data)
        response["X-Total-Count"] = str(matches.count())
        return response


class UserDetailView(HarborViewMixin, APIView):
    def own_or_admin(self, request, user_id: int):
        require_login(request)
        if request.user.pk != user_id and not access.is_sysadmin(request.user):
            raise Forbidden(request.user.get_username())
        return get_user(user_id)

    @extend_schema(
        operation_id="getUser",
        responses=schema.responses(UserRespSerializer, 401, 403, 404),
    )
    def get(self, request, user_id):
        return Response(UserRespSerializer(self.own_or_admin(request, user_id)).data)

    @extend_schema(
        operation_id="updateUserProfile",
        request=UserProfileSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, user_id):
        user = self.own_or_admin(request, user_id)
        body = self.body(UserProfileSerializer)
        services.update_user_profile(
            user, body.get("email"), body.get("realname"), body.get("comment")
        )
        return self.empty()

    @extend_schema(
        operation_id="deleteUser",
        responses=schema.responses(None, 401, 403, 404, 412),
    )
    def delete(self, request, user_id):
        require_sysadmin(request)
        user = get_user(user_id)
        if user.pk == request.user.pk:
            raise Forbidden("can not delete yourself")
        services.delete_user(user)
        return self.empty()


class UserPasswordView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="updateUserPassword",
        request=PasswordReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, user_id):
        require_login(request)
        by_admin = access.is_sysadmin(request.user)
        if request.user.pk != user_id and not by_admin:
            raise Forbidden(request.user.get_username())
        user = get_user(user_id)
        body = self.body(PasswordReqSerializer)
        own = request.user.pk == user_id
        if by_admin and not own:
            services.change_password(user, body["new_password"], None, by_admin=True)
            return self.empty()
        # The old password is a password check like a sign-in: throttled and counted the
        # same way, or a stolen session could guess the account's password at full speed.
        signin_throttle.check(request, user.get_username())
        try:
            services.change_password(
                user, body["new_password"], body.get("old_password"), by_admin=False
            )
        except Forbidden:
            signin_throttle.record_failure(request, user.get_username())
            raise
        return self.empty()


class UserSysAdminView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="setUserSysAdmin",
        request=UserSysAdminFlagSerializer,
        responses=schema.responses(None, 401, 403, 404),
    )
    def put(self, request, user_id):
        require_sysadmin(request)
        user = get_user(user_id)
        body = self.body(UserSysAdminFlagSerializer)
        services.set_sysadmin(user, bool(body.get("sysadmin_flag")))
        return self.empty()


# --- user groups ----------------------------------------------------------------------------


def get_group(group_id: int) -> UserGroup:
    group = UserGroup.objects.filter(pk=group_id).first()
    if group is None:
        raise NotFound(f"the user group with id {group_id} is not found")
    return group


# ldap_group_dn filters in LDAP mode only (the view applies it).
GROUP_FILTERS = QueryFilters(
    {
        **PAGING,
        "ldap_group_dn": Param(parse=optional),
        "group_name": Param(
            parse=optional, apply=lambda qs, name: qs.filter(group_name__icontains=name)
        ),
    }
)


class UserGroupListView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="listUserGroups",
        parameters=GROUP_FILTERS.parameters,
        responses=schema.responses(UserGroupSerializer(many=True), 401, 403),
    )
    def get(self, request):
        require_sysadmin(request)
        queryset = UserGroup.objects.order_by("group_name", "pk")
        mode = configuration.get("auth_mode")
        if mode == "ldap_auth":
            queryset = queryset.filter(group_type=UserGroup.GroupType.LDAP)
            dn = GROUP_FILTERS.get(request.query_params, "ldap_group_dn")
            if dn:
                queryset = queryset.filter(ldap_group_dn=dn)
        elif mode == "http_auth":
            queryset = queryset.filter(group_type=UserGroup.GroupType.HTTP)
        queryset = GROUP_FILTERS.filter(queryset, request.query_params)
        return self.list_response(queryset, UserGroupSerializer)

    @extend_schema(
        operation_id="createUserGroup",
        request=UserGroupReqSerializer,
        responses=schema.responses(None, 400, 401, 403, 409, ok_status=201),
    )
    def post(self, request):
        require_sysadmin(request)
        body = self.body(UserGroupReqSerializer)
        if body.get("group_type") == UserGroup.GroupType.LDAP and ldap_mode():
            # As Harbor: an LDAP group must exist in the directory.
            ldap_onboarding.verify_group_dn(body.get("ldap_group_dn") or "")
        group = services.create_user_group(
            body["group_name"],
            body.get("group_type") or UserGroup.GroupType.HTTP,
            body.get("ldap_group_dn") or "",
        )
        return self.empty(201, f"{request.path.rstrip('/')}/{group.pk}")


class UserGroupSearchView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="searchUserGroups",
        parameters=[*schema.PAGE, schema.query("groupname", required=True)],
        responses=schema.responses(UserGroupSearchItemSerializer(many=True), 401),
    )
    def get(self, request):
        require_login(request)
        name = self.query_required("groupname")
        queryset = UserGroup.objects.filter(group_name__icontains=name).order_by("group_name", "pk")
        return self.list_response(queryset, UserGroupSearchItemSerializer)


class UserGroupDetailView(HarborViewMixin, APIView):
    @extend_schema(
        operation_id="getUserGroup",
        responses=schema.responses(UserGroupSerializer, 400, 401, 403, 404),
    )
    def get(self, request, group_id):
        require_sysadmin(request)
        data = UserGroupSerializer(get_group(group_id)).data
        # Harbor's single-group answer carries no id.
        data.pop("id", None)
        return Response(data)

    @extend_schema(
        operation_id="updateUserGroup",
        request=UserGroupUpdateSerializer,
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def put(self, request, group_id):
        require_sysadmin(request)
        group = get_group(group_id)
        body = self.body(UserGroupUpdateSerializer)
        services.rename_user_group(group, body["group_name"])
        return self.empty()

    @extend_schema(
        operation_id="deleteUserGroup",
        responses=schema.responses(None, 400, 401, 403, 404),
    )
    def delete(self, request, group_id):
        require_sysadmin(request)
        get_group(group_id).delete()
        return self.empty()
